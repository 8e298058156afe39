package logging

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"
)

// Every name in Names parses, in any case, to the level logrus gives it;
// anything else is refused with the list.
func TestParseLevel(t *testing.T) {
	want := map[string]slog.Level{
		"trace": LevelTrace, "debug": slog.LevelDebug, "info": slog.LevelInfo,
		"warn": slog.LevelWarn, "warning": slog.LevelWarn, "error": slog.LevelError, "fatal": LevelFatal,
	}
	if len(want) != len(Names) {
		t.Fatalf("Names = %v; the test knows %d names", Names, len(want))
	}
	for _, name := range Names {
		for _, spelled := range []string{name, strings.ToUpper(name), " " + name + "\n"} {
			got, err := ParseLevel(spelled)
			if err != nil || got != want[name] {
				t.Errorf("ParseLevel(%q) = %v, %v; want %v", spelled, got, err, want[name])
			}
		}
	}
	if got, err := ParseLevel(""); err != nil || got != slog.LevelInfo {
		t.Errorf("ParseLevel(\"\") = %v, %v; want info", got, err)
	}
	_, err := ParseLevel("loud")
	if err == nil || !strings.Contains(err.Error(), strings.Join(Names, ", ")) {
		t.Errorf("ParseLevel(loud): %v; want an error listing %v", err, Names)
	}
}

// A logger from New drops lines below its level, names trace and fatal,
// and adds the attributes With put in a line's context.
func TestNew(t *testing.T) {
	var out bytes.Buffer
	log := New(&out, LevelTrace)
	ctx := With(With(context.Background(), slog.String("request", "r1")), slog.Int("try", 2))
	log.Log(ctx, LevelTrace, "tracing")
	log.With("vm", "dev").Log(context.Background(), LevelFatal, "gone")
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 ||
		!strings.Contains(lines[0], "level=TRACE") || !strings.Contains(lines[0], "request=r1 try=2") ||
		!strings.Contains(lines[1], "level=FATAL") || !strings.Contains(lines[1], "vm=dev") {
		t.Fatalf("logged:\n%s", out.String())
	}

	out.Reset()
	log = New(&out, slog.LevelWarn)
	log.InfoContext(ctx, "quiet")
	log.Debug("quieter")
	log.Warn("heard")
	if got := out.String(); strings.Contains(got, "quiet") || !strings.Contains(got, "level=WARN msg=heard") {
		t.Errorf("a warn logger logged:\n%s", got)
	}
}
