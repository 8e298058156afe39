package icon

import (
	"bytes"
	"image/png"
	"testing"

	"paddock.dev/paddock/app/menu"
)

func TestEveryStateHasAPNG(t *testing.T) {
	seen := map[string]bool{}
	for _, i := range []menu.Icon{menu.IconStopped, menu.IconStarting, menu.IconRunning, menu.IconError} {
		r := For(i)
		if r == nil {
			t.Fatalf("no icon for state %d", i)
		}
		img, err := png.Decode(bytes.NewReader(r.Content()))
		if err != nil || img.Bounds().Dx() < 32 {
			t.Fatalf("%s: not a PNG a tray can show: %v", r.Name(), err)
		}
		if seen[string(r.Content())] {
			t.Errorf("%s looks like another state's icon", r.Name())
		}
		seen[string(r.Content())] = true
	}
	if _, err := png.Decode(bytes.NewReader(App.Content())); err != nil {
		t.Fatal(err)
	}
}
