package lima

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"regexp"
	"strings"
	"time"
)

// panicMarker starts the line a Linux kernel prints when it panics. A
// guest whose kernel panicked never answers SSH, and Lima's host agent
// would wait for it for ten minutes.
const panicMarker = "Kernel panic - not syncing"

// panicContext is how many console lines before the panic a StartError
// keeps: they usually say what went wrong ("VFS: Unable to mount root fs").
const panicContext = 3

// kernelTime is the timestamp the kernel puts before its console lines.
var kernelTime = regexp.MustCompile(`^\[\s*\d+\.\d+\]\s*`)

// consoleWatch follows a guest's serial console log, which QEMU writes
// afresh at each boot, for a kernel panic. Until QEMU has started, the log
// is the previous boot's: a log last written before notBefore (when this
// boot's host agent started) is not read.
type consoleWatch struct {
	path      string
	notBefore time.Time
	offset    int64
	last      []string // the last complete lines read, at most panicContext
	rest      []byte   // a line not yet complete
}

// check reads what the console got since the last check and returns the
// lines up to and including the panic, once there was one.
func (w *consoleWatch) check() (lines []string, panicked bool) {
	f, err := os.Open(w.path)
	if err != nil {
		return nil, false // not written yet
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || st.ModTime().Before(w.notBefore) {
		return nil, false
	}
	if st.Size() < w.offset {
		// A new boot's log: start over.
		w.offset, w.last, w.rest = 0, nil, nil
	}
	if _, err := f.Seek(w.offset, io.SeekStart); err != nil {
		return nil, false
	}
	data, err := io.ReadAll(io.LimitReader(f, tailBytes))
	if err != nil {
		return nil, false
	}
	w.offset += int64(len(data))
	data = append(w.rest, data...)
	end := bytes.LastIndexByte(data, '\n') + 1
	w.rest = append([]byte(nil), data[end:]...)
	sc := bufio.NewScanner(bytes.NewReader(data[:end]))
	sc.Buffer(make([]byte, 0, 4096), len(data)+1)
	for sc.Scan() {
		line := strings.TrimSpace(kernelTime.ReplaceAllString(sc.Text(), ""))
		if line == "" {
			continue
		}
		if strings.Contains(line, panicMarker) {
			return append(w.last, line[strings.Index(line, panicMarker):]), true
		}
		w.last = append(w.last, line)
		if len(w.last) > panicContext {
			w.last = w.last[1:]
		}
	}
	return nil, false
}
