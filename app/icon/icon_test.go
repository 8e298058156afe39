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
		data := For(i)
		if data == nil {
			t.Fatalf("no icon for state %d", i)
		}
		img, err := png.Decode(bytes.NewReader(data))
		if err != nil || img.Bounds().Dx() < 32 {
			t.Fatalf("state %d: not a PNG a tray can show: %v", i, err)
		}
		if seen[string(data)] {
			t.Errorf("state %d's icon looks like another state's", i)
		}
		seen[string(data)] = true
	}
	if _, err := png.Decode(bytes.NewReader(App())); err != nil {
		t.Fatal(err)
	}
}
