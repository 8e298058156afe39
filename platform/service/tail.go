package service

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"time"
)

// pollInterval is how often a followed log file is checked for growth.
const pollInterval = 250 * time.Millisecond

// tailFile writes the last few lines of the file at path to w, as many as
// the number lines says (all of it if lines is 0), and, with follow, what
// is appended to it until ctx ends. A file that is truncated or replaced
// (rotated) is read again from its start.
func tailFile(ctx context.Context, w io.Writer, path string, lines int, follow bool) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("read the service's log: %w", err)
	}
	defer func() { f.Close() }()
	data, err := io.ReadAll(f)
	if err != nil {
		return err
	}
	if _, err := w.Write(lastLines(data, lines)); err != nil {
		return err
	}
	if !follow {
		return nil
	}
	offset := int64(len(data))
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(pollInterval):
		}
		if fi, err := os.Stat(path); err == nil {
			cur, err := f.Stat()
			if err == nil && (!os.SameFile(fi, cur) || fi.Size() < offset) {
				next, err := os.Open(path)
				if err != nil {
					continue
				}
				f.Close()
				f, offset = next, 0
			}
		}
		n, err := io.Copy(w, f)
		offset += n
		if err != nil {
			return err
		}
	}
}

// lastLines returns the last n lines of data, or all of it if n is 0.
func lastLines(data []byte, n int) []byte {
	if n <= 0 {
		return data
	}
	end := len(data)
	if end > 0 && data[end-1] == '\n' {
		end--
	}
	for i := 0; i < n; i++ {
		j := bytes.LastIndexByte(data[:end], '\n')
		if j < 0 {
			return data
		}
		end = j
	}
	return data[end+1:]
}
