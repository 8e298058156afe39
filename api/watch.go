package api

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"strconv"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"paddock.dev/paddock/api/wire"
	"paddock.dev/paddock/core/resource"
	"paddock.dev/paddock/core/store"
)

// listOperation describes a GET that answers JSON, or with watch=true a
// stream of server-sent events; huma cannot infer either from a streaming
// handler, so the responses are declared here.
func (s *Server) listOperation(k *resource.Kind, id, path, summary string, item reflect.Type) huma.Operation {
	reg := s.api.OpenAPI().Components.Schemas
	// The App's GET answers the object; a namespaced kind's a list.
	body := reg.Schema(item, true, "")
	if k.Namespaced {
		body = &huma.Schema{
			Type: "object",
			Properties: map[string]*huma.Schema{
				"apiVersion": {Type: "string"},
				"kind":       {Type: "string", Description: "The item kind followed by List."},
				"metadata":   reg.Schema(reflect.TypeFor[wire.ListMeta](), true, ""),
				"items":      {Type: "array", Items: reg.Schema(item, true, "")},
			},
			Required: []string{"apiVersion", "kind", "metadata", "items"},
		}
	}
	event := reg.Schema(reflect.TypeFor[wire.WatchEvent](), true, "")
	return huma.Operation{
		OperationID: id,
		Method:      http.MethodGet,
		Path:        path,
		Summary:     summary,
		Description: "With watch=true the answer is a text/event-stream: each event's id is the revision and its data a WatchEvent. " +
			"Resume with resourceVersion (or Last-Event-ID); a revision too old to replay answers 410 Gone, and the client lists again.",
		Tags:   []string{k.Plural},
		Errors: []int{http.StatusBadRequest, http.StatusNotFound, http.StatusGone},
		Responses: map[string]*huma.Response{
			"200": {
				Description: "The list (or object), or the watch stream.",
				Content: map[string]*huma.MediaType{
					"application/json":   {Schema: body},
					wire.EventStreamType: {Schema: event},
				},
			},
		},
	}
}

func (s *Server) listOrWatch(ctx context.Context, k *resource.Kind, ns string, q ListQuery) (*huma.StreamResponse, error) {
	opts := store.ListOptions{Kind: k, Namespace: ns}
	var err error
	if q.LabelSelector != "" {
		if opts.Labels, err = store.ParseLabelSelector(q.LabelSelector); err != nil {
			return nil, toProblem(err)
		}
	}
	if q.FieldSelector != "" {
		if opts.Fields, err = store.ParseFieldSelector(q.FieldSelector); err != nil {
			return nil, toProblem(err)
		}
	}
	if !q.Watch {
		items, rev, err := s.store.ListRaw(ctx, opts)
		if err != nil {
			return nil, toProblem(err)
		}
		return &huma.StreamResponse{Body: func(hctx huma.Context) { writeList(hctx, k, items, rev) }}, nil
	}
	from, err := parseRevision(q.ResourceVersion, q.LastEventID)
	if err != nil {
		return nil, toProblem(err)
	}
	w, err := s.store.Watch(ctx, store.WatchOptions{ListOptions: opts, ResourceVersion: from})
	if err != nil {
		return nil, toProblem(err)
	}
	return &huma.StreamResponse{Body: func(hctx huma.Context) { s.stream(hctx, k, w) }}, nil
}

func parseRevision(values ...string) (int64, error) {
	for _, v := range values {
		if v == "" {
			continue
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			return 0, resource.Errorf(resource.ReasonBadRequest, "resourceVersion %q is not a revision: use a number from a list's metadata.resourceVersion", v)
		}
		return n, nil
	}
	return 0, nil
}

// writeList writes a list envelope around the stored JSON of each item, as
// it is, without decoding it.
func writeList(hctx huma.Context, k *resource.Kind, items [][]byte, rev int64) {
	size := 128
	for _, it := range items {
		size += len(it) + 1
	}
	buf := bytes.NewBuffer(make([]byte, 0, size))
	fmt.Fprintf(buf, `{"apiVersion":%q,"kind":%q,"metadata":{"resourceVersion":"%d"},"items":[`, resource.APIVersion, k.Name+"List", rev)
	for i, it := range items {
		if i > 0 {
			buf.WriteByte(',')
		}
		buf.Write(it)
	}
	buf.WriteString("]}\n")
	hctx.SetHeader("Content-Type", "application/json")
	hctx.SetHeader("Content-Length", strconv.Itoa(buf.Len()))
	hctx.SetStatus(http.StatusOK)
	hctx.BodyWriter().Write(buf.Bytes())
}

// streamJSON answers with one object as JSON.
func streamJSON(obj resource.Object) *huma.StreamResponse {
	return &huma.StreamResponse{Body: func(hctx huma.Context) {
		data, err := json.Marshal(obj)
		if err != nil {
			hctx.SetStatus(http.StatusInternalServerError)
			return
		}
		hctx.SetHeader("Content-Type", "application/json")
		hctx.SetStatus(http.StatusOK)
		hctx.BodyWriter().Write(append(data, '\n'))
	}}
}

// Bounds of a watch's client that stops reading. An event is never cut
// off while the client may still read it: a client that took longer than
// streamStall to take one event is sent an ERROR event after it, which
// says to resume, and the stream ends between events. Only a client that
// reads nothing for streamGiveUp loses its connection mid-event, and it
// sees nothing anyway.
var (
	streamStall  = 30 * time.Second
	streamGiveUp = 5 * time.Minute
)

// stream writes w's events as server-sent events until the client leaves,
// the watch ends, or the server shuts down. A watch the daemon ends (its
// reader fell behind or stalled, or the daemon stops) ends with an ERROR
// event whose object is a problem saying to resume from the last event id.
func (s *Server) stream(hctx huma.Context, k *resource.Kind, w *store.Watcher) {
	defer w.Stop()
	s.streaming.Add(1)
	defer s.streaming.Add(-1)
	hctx.SetHeader("Content-Type", wire.EventStreamType)
	hctx.SetHeader("Cache-Control", "no-cache")
	hctx.SetStatus(http.StatusOK)
	out := hctx.BodyWriter()
	rc := http.NewResponseController(out.(http.ResponseWriter))
	// A stream outlives the server's read timeout, which would otherwise
	// end it.
	rc.SetReadDeadline(time.Time{})
	// send writes and flushes one event, reporting whether the client
	// took it within streamStall.
	send := func(format string, args ...any) (bool, error) {
		start := time.Now()
		rc.SetWriteDeadline(start.Add(streamGiveUp))
		if _, err := fmt.Fprintf(out, format, args...); err != nil {
			return false, err
		}
		if err := rc.Flush(); err != nil {
			return false, err
		}
		return time.Since(start) <= streamStall, nil
	}
	if _, err := send(""); err != nil {
		return
	}
	ctx, stop := context.WithCancel(hctx.Context())
	defer stop()
	defer context.AfterFunc(s.watchesEnded, stop)()
	bookmark := func(rev int64) json.RawMessage {
		return json.RawMessage(fmt.Sprintf(`{"apiVersion":%q,"kind":%q,"metadata":{"resourceVersion":"%d"}}`, resource.APIVersion, k.Name, rev))
	}
	end := func(err error) {
		s.log.DebugContext(hctx.Context(), "watch stream ended", "kind", k.Name, "err", err)
		problem, _ := json.Marshal(newProblem(resource.ReasonGone, err.Error()).Problem)
		data, _ := json.Marshal(wire.WatchEvent{Type: wire.WatchError, Object: problem})
		send("data: %s\n\n", data)
	}
	for {
		ev, err := w.Next(ctx)
		if err != nil {
			if hctx.Context().Err() != nil {
				return
			}
			if s.watchesEnded.Err() != nil {
				err = store.ErrWatchClosed
			}
			end(err)
			return
		}
		msg := wire.WatchEvent{Type: string(ev.Type), Object: ev.Object}
		if ev.Type == store.Bookmark {
			msg.Object = bookmark(ev.Revision)
		}
		data, err := json.Marshal(msg)
		if err != nil {
			return
		}
		inTime, err := send("id: %d\ndata: %s\n\n", ev.Revision, data)
		if err != nil {
			return
		}
		if !inTime {
			end(fmt.Errorf("watch ended: the reader took more than %v to take one event; resume from the last revision received", streamStall))
			return
		}
	}
}
