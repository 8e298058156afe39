package bootwatch

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

// initFailedMarker starts the line the guest image's lima-init
// (platform/linux/guestimage) prints on the console when it fails: it
// applies the user, its SSH keys, the network and the host folders, so SSH
// never comes up after it, and Lima's host agent would wait for it for ten
// minutes. lima-init says why it failed just before.
const initFailedMarker = "lima-init: failed (exit "

// initDoneMarker is the line the guest image's lima-init prints on the
// console when it has applied the cidata: the user, the network, the host
// folders. The image's sshd starts after it, so no SSH connection made
// before it can reach an sshd (see platform/lima/sshshim).
const initDoneMarker = "lima-init: done"

// bootDonePrefix and bootDoneMarker make the last line Lima v1.2.2's
// boot.sh prints ("LIMA 2026-12-05T23:38:27+00:00| Exiting with code 0"),
// after it wrote /run/lima-boot-done, the file the host agent's last
// requirement waits for. The guest image's lima-boot.service puts the
// script's output on the console.
const (
	bootDonePrefix = "LIMA "
	bootDoneMarker = "| Exiting with code "
)

// Why a boot is known to have failed, as Console.Check says it.
const (
	ReasonPanicked   = "the guest's kernel panicked"
	ReasonInitFailed = "the guest's lima-init failed, so SSH will not come up"
)

// readMax is how much of the log one Check reads.
const readMax = 64 << 10

// panicContext is how many console lines before the failure a StartError
// keeps: they usually say what went wrong ("VFS: Unable to mount root fs",
// "lima-init: no network card (eth0) appeared in 60 s").
const panicContext = 3

// linePrefix is what comes before a console line's text: the kernel's
// timestamp, and for a line journald forwards, the name and pid of the
// process that wrote it ("[   22.31] lima-init[231]: ").
var linePrefix = regexp.MustCompile(`^(\[\s*\d+\.\d+\]\s*)?([\w@.-]+\[\d+\]:\s*)?`)

// statusLine matches systemd's coloured status lines on the console
// ("[  OK  ] Started …", "[FAILED] Failed to start …", "[DEPEND] …"). They
// say which units started or failed, never why, and come in bursts: a
// failed lima-init is followed by one for each unit that needed it, which
// can reach the console before lima-init's own last line. They are not
// kept as the lines before a failure.
var statusLine = regexp.MustCompile(`^\[(\x1b\[[0-9;]*m)?\s*[A-Z]+\s*(\x1b\[[0-9;]*m)?\]`)

// Console follows a guest's serial console log, which QEMU writes afresh
// at each boot, for a kernel panic or a failed lima-init, and for the ends
// of lima-init and of Lima's boot scripts. Until QEMU has started, the
// log is the previous boot's: a log last written before NotBefore (when
// this boot's host agent started) is not read.
type Console struct {
	Path      string    // the log, Lima's serial.log
	NotBefore time.Time // this boot's start, if known
	initDone  bool      // the log showed initDoneMarker
	bootDone  bool      // the log showed boot.sh's end (bootDoneMarker)
	offset    int64
	last      []string // the last complete lines read, at most panicContext
	rest      []byte   // a line not yet complete
}

// InitDone reports whether the log read so far showed lima-init's end.
func (w *Console) InitDone() bool { return w.initDone }

// BootDone reports whether the log read so far showed the end of Lima's
// boot scripts, which then wrote /run/lima-boot-done.
func (w *Console) BootDone() bool { return w.bootDone }

// Check reads what the console got since the last check and, once the
// boot failed, returns why (ReasonPanicked, ReasonInitFailed) and the
// lines up to and including the failure.
func (w *Console) Check() (lines []string, failed string) {
	f, err := os.Open(w.Path)
	if err != nil {
		return nil, "" // not written yet
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || st.ModTime().Before(w.NotBefore) {
		return nil, ""
	}
	if st.Size() < w.offset {
		// A new boot's log: start over.
		w.offset, w.last, w.rest, w.initDone, w.bootDone = 0, nil, nil, false, false
	}
	if _, err := f.Seek(w.offset, io.SeekStart); err != nil {
		return nil, ""
	}
	data, err := io.ReadAll(io.LimitReader(f, readMax))
	if err != nil {
		return nil, ""
	}
	w.offset += int64(len(data))
	data = append(w.rest, data...)
	end := bytes.LastIndexByte(data, '\n') + 1
	w.rest = append([]byte(nil), data[end:]...)
	sc := bufio.NewScanner(bytes.NewReader(data[:end]))
	sc.Buffer(make([]byte, 0, 4096), len(data)+1)
	for sc.Scan() {
		line := strings.TrimSpace(linePrefix.ReplaceAllString(sc.Text(), ""))
		if line == "" {
			continue
		}
		if i := strings.Index(line, panicMarker); i >= 0 {
			return append(w.last, line[i:]), ReasonPanicked
		}
		if i := strings.Index(line, initFailedMarker); i >= 0 {
			return append(w.last, line[i:]), ReasonInitFailed
		}
		w.initDone = w.initDone || line == initDoneMarker
		w.bootDone = w.bootDone || strings.HasPrefix(line, bootDonePrefix) && strings.Contains(line, bootDoneMarker)
		if statusLine.MatchString(line) {
			continue
		}
		w.last = append(w.last, line)
		if len(w.last) > panicContext {
			w.last = w.last[1:]
		}
	}
	return nil, ""
}
