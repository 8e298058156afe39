package icon

import (
	"bytes"
	"encoding/binary"
	"image"
	"image/png"
	"runtime"
	"testing"

	"paddock.dev/paddock/app/menu"
)

var states = []menu.Icon{menu.IconStopped, menu.IconStarting, menu.IconRunning, menu.IconError}

func TestEveryStateHasAPNG(t *testing.T) {
	seen := map[string]bool{}
	for _, i := range states {
		data := byState[i]
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

// The tray gets an .ico on Windows, whose tray loads nothing else, and
// PNG elsewhere.
func TestForGivesTheTrayItsFormat(t *testing.T) {
	for _, i := range states {
		got, want := For(i), byState[i]
		if runtime.GOOS == "windows" {
			want = ICO(i)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: state %d's tray icon is not in the form its tray loads", runtime.GOOS, i)
		}
	}
}

// Each state's .ico parses as Windows reads one: an icon directory whose
// entries hold PNGs of 16, 32 and 64 pixels, each still showing the
// state's picture.
func TestICO(t *testing.T) {
	seen := map[string]bool{}
	for _, i := range states {
		ico := ICO(i)
		imgs := parseICO(t, ico)
		if len(imgs) != 3 {
			t.Fatalf("state %d: %d images, want 16, 32 and 64 pixels", i, len(imgs))
		}
		for k, want := range []int{16, 32, 64} {
			img := imgs[k]
			if b := img.Bounds(); b.Dx() != want || b.Dy() != want {
				t.Errorf("state %d, entry %d: %v, want %d×%d", i, k, b, want, want)
			}
			if opaque(img) == 0 {
				t.Errorf("state %d, %d pixels: nothing shows", i, want)
			}
		}
		if seen[string(ico)] {
			t.Errorf("state %d's .ico is another state's", i)
		}
		seen[string(ico)] = true
	}
	// The 64-pixel entry is the PNG itself, pixel for pixel.
	orig, _ := png.Decode(bytes.NewReader(byState[menu.IconRunning]))
	big := parseICO(t, ICO(menu.IconRunning))[2]
	for y := range 64 {
		for x := range 64 {
			r1, g1, b1, a1 := orig.At(x, y).RGBA()
			r2, g2, b2, a2 := big.At(x, y).RGBA()
			if r1 != r2 || g1 != g2 || b1 != b2 || a1 != a2 {
				t.Fatalf("64-pixel entry differs from running.png at %d,%d", x, y)
			}
		}
	}
}

func TestPNGToICORefusesWhatItCannotHalve(t *testing.T) {
	if _, err := pngToICO(byState[menu.IconRunning], []int{24}); err == nil {
		t.Error("24 pixels from a 64-pixel picture: no error")
	}
	if _, err := pngToICO([]byte("not a png"), icoSizes); err == nil {
		t.Error("not a PNG: no error")
	}
}

// parseICO reads an .ico as LoadImage does: ICONDIR (reserved 0, type 1,
// count), ICONDIRENTRY each (width, height, colours, reserved, planes,
// bits, size, offset), and decodes each entry's data as PNG.
func parseICO(t *testing.T, b []byte) []image.Image {
	t.Helper()
	le := binary.LittleEndian
	if len(b) < 6 || le.Uint16(b[0:]) != 0 || le.Uint16(b[2:]) != 1 {
		t.Fatalf("no icon directory: % x", b[:min(len(b), 6)])
	}
	n := int(le.Uint16(b[4:]))
	var out []image.Image
	for k := range n {
		e := b[6+16*k : 6+16*(k+1)]
		w, h := int(e[0]), int(e[1])
		size, off := int(le.Uint32(e[8:])), int(le.Uint32(e[12:]))
		if le.Uint16(e[4:]) != 1 || le.Uint16(e[6:]) != 32 {
			t.Errorf("entry %d: planes %d, bits %d; want 1 and 32", k, le.Uint16(e[4:]), le.Uint16(e[6:]))
		}
		if off+size > len(b) {
			t.Fatalf("entry %d: data at %d+%d past the file's %d bytes", k, off, size, len(b))
		}
		data := b[off : off+size]
		if !bytes.HasPrefix(data, []byte("\x89PNG\r\n\x1a\n")) {
			t.Fatalf("entry %d is not PNG data", k)
		}
		img, err := png.Decode(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("entry %d: %v", k, err)
		}
		if img.Bounds().Dx() != w || img.Bounds().Dy() != h {
			t.Errorf("entry %d says %d×%d, its PNG is %v", k, w, h, img.Bounds())
		}
		out = append(out, img)
	}
	return out
}

// opaque counts img's pixels that are more than half opaque.
func opaque(img image.Image) int {
	n := 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if _, _, _, a := img.At(x, y).RGBA(); a > 0x8000 {
				n++
			}
		}
	}
	return n
}
