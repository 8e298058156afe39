package api

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"net/http"
	"os"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"paddock.dev/paddock/api/wire"
	"paddock.dev/paddock/core/resource"
)

// logPollInterval is how often a followed log is checked for more.
const logPollInterval = 200 * time.Millisecond

type logsInput struct {
	Namespace string `path:"namespace"`
	Name      string `path:"name"`
	Stream    string `query:"stream" enum:"stderr,stdout,serial" default:"stderr" doc:"Which log: stderr, the host agent's log (what it did and why it failed); stdout, its events, one JSON object a line; serial, the guest's console."`
	Follow    bool   `query:"follow" doc:"Keep the answer open and send what is written to the log, until the client leaves or the daemon stops."`
}

func (s *Server) registerVMLogs() {
	huma.Register(s.api, huma.Operation{
		OperationID: "logs-vm",
		Method:      http.MethodGet,
		Path:        wire.Base + "/namespaces/{namespace}/vms/{name}/logs",
		Summary:     "A VM's machine's log, as text; with follow=true, streamed as it grows",
		Description: "A log that is replaced or truncated while followed (the machine started again) is followed from its new beginning.",
		Tags:        []string{resource.KindVM.Plural},
		Errors:      []int{http.StatusBadRequest, http.StatusNotFound},
		Responses: map[string]*huma.Response{
			"200": {
				Description: "The log's text.",
				Content:     map[string]*huma.MediaType{"text/plain": {Schema: &huma.Schema{Type: "string"}}},
			},
		},
	}, func(ctx context.Context, in *logsInput) (*huma.StreamResponse, error) {
		f, path, err := s.openLog(ctx, in)
		if err != nil {
			return nil, toProblem(err)
		}
		return &huma.StreamResponse{Body: func(hctx huma.Context) {
			defer func() { f.Close() }()
			hctx.SetHeader("Content-Type", "text/plain; charset=utf-8")
			hctx.SetHeader("Cache-Control", "no-cache")
			hctx.SetStatus(http.StatusOK)
			out := hctx.BodyWriter()
			if _, err := io.Copy(out, f); err != nil || !in.Follow {
				return
			}
			flush(out)
			f = s.followLog(hctx.Context(), f, path, out)
		}}, nil
	})
}

// openLog opens the log a request names.
func (s *Server) openLog(ctx context.Context, in *logsInput) (*os.File, string, error) {
	if _, err := s.accessibleVM(ctx, in.Namespace, in.Name); err != nil {
		return nil, "", err
	}
	stream := resource.VMLogStream(in.Stream)
	path, err := s.access.LogPath(in.Name, stream)
	if err != nil {
		return nil, "", resource.Errorf(resource.ReasonNotFound, "vm %s has no %s log: %v", in.Name, stream, err)
	}
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, "", resource.Errorf(resource.ReasonNotFound, "vm %s has no %s log yet: it was never started", in.Name, stream)
	}
	return f, path, err
}

// followLog copies what is written to the log at path, open as f, to out
// until ctx ends, and returns the file it has open then. A log replaced by
// a new file, or truncated, is followed from its new beginning.
func (s *Server) followLog(ctx context.Context, f *os.File, path string, out io.Writer) *os.File {
	tick := time.NewTicker(logPollInterval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return f
		case <-tick.C:
		}
		if next := reopened(f, path); next != nil {
			f.Close()
			f = next
		}
		n, err := io.Copy(out, f)
		if err != nil {
			return f
		}
		if n > 0 {
			flush(out)
		}
	}
}

// reopened returns the log at path opened anew when it is no longer the
// file f, or was truncated below f's offset; otherwise nil.
func reopened(f *os.File, path string) *os.File {
	open, err := f.Stat()
	if err != nil {
		return nil
	}
	now, err := os.Stat(path)
	if err != nil {
		return nil
	}
	offset, err := f.Seek(0, io.SeekCurrent)
	if err != nil {
		return nil
	}
	if os.SameFile(open, now) && now.Size() >= offset {
		return nil
	}
	next, err := os.Open(path)
	if err != nil {
		return nil
	}
	return next
}

func flush(w io.Writer) {
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}
