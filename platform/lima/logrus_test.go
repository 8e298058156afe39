package lima_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/sirupsen/logrus"

	"paddock.dev/paddock/core/logging"
	"paddock.dev/paddock/platform/lima"
)

func TestRouteLogrus(t *testing.T) {
	var buf bytes.Buffer
	lima.RouteLogrus(logging.New(&buf, logging.LevelTrace))
	logrus.Trace("tracing")
	logrus.WithField("disk", "vda").Warn("disk busy")
	logrus.Error("went wrong")
	out := buf.String()
	for _, want := range []string{"level=TRACE msg=tracing", "level=WARN msg=\"disk busy\"", "disk=vda", "level=ERROR msg=\"went wrong\""} {
		if !strings.Contains(out, want) {
			t.Errorf("slog output lacks %q:\n%s", want, out)
		}
	}

	buf.Reset()
	lima.RouteLogrus(logging.New(&buf, logging.LevelFatal))
	logrus.Error("below the level")
	if buf.Len() != 0 {
		t.Errorf("an error passed a fatal-level logger: %s", buf.String())
	}
}
