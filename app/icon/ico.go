package icon

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"image"
	"image/draw"
	"image/png"
	"slices"
	"sync"

	"paddock.dev/paddock/app/menu"
)

// icoSizes are the sizes an .ico of a tray picture holds, so that Windows
// picks one near its tray's (16 pixels at 100 %, 32 at 200 %, the system
// icon size LoadImage asks for) instead of scaling the 64-pixel picture.
var icoSizes = []int{16, 32, 64}

// ICO returns the tray icon of a state as an .ico, the only form the
// Windows tray loads (LoadImage with IMAGE_ICON): its PNG halved to each of
// icoSizes, each stored as PNG, which Windows reads in an .ico since Vista.
func ICO(i menu.Icon) []byte { return icoByState()[i] }

var icoByState = sync.OnceValue(func() map[menu.Icon][]byte {
	m := make(map[menu.Icon][]byte, len(byState))
	for state, p := range byState {
		b, err := pngToICO(p, icoSizes)
		if err != nil {
			panic(fmt.Sprintf("tray icon %d: %v", state, err)) // the embedded PNGs are tested
		}
		m[state] = b
	}
	return m
})

// pngToICO makes an .ico of the PNG p at each of sizes, each a whole
// halving of p's square size.
func pngToICO(p []byte, sizes []int) ([]byte, error) {
	src, err := png.Decode(bytes.NewReader(p))
	if err != nil {
		return nil, err
	}
	if b := src.Bounds(); b.Dx() != b.Dy() {
		return nil, fmt.Errorf("not square: %v", b)
	}
	img := image.NewRGBA(image.Rect(0, 0, src.Bounds().Dx(), src.Bounds().Dy()))
	draw.Draw(img, img.Bounds(), src, src.Bounds().Min, draw.Src)
	scaled := map[int][]byte{img.Bounds().Dx(): p} // the picture itself, as drawn
	for img = halve(img); img.Bounds().Dx() >= slices.Min(sizes); img = halve(img) {
		var buf bytes.Buffer
		if err := png.Encode(&buf, img); err != nil {
			return nil, err
		}
		scaled[img.Bounds().Dx()] = buf.Bytes()
	}
	var entries [][]byte
	for _, s := range sizes {
		b, ok := scaled[s]
		if !ok {
			return nil, fmt.Errorf("%d pixels is no halving of %d", s, src.Bounds().Dx())
		}
		entries = append(entries, b)
	}
	return encodeICO(sizes, entries)
}

// halve averages each 2×2 block of img (premultiplied, so transparent
// pixels lend no colour).
func halve(img *image.RGBA) *image.RGBA {
	n := img.Bounds().Dx() / 2
	out := image.NewRGBA(image.Rect(0, 0, n, n))
	for y := range n {
		for x := range n {
			for c := range 4 {
				sum := 0
				for _, d := range [4][2]int{{0, 0}, {1, 0}, {0, 1}, {1, 1}} {
					sum += int(img.Pix[img.PixOffset(2*x+d[0], 2*y+d[1])+c])
				}
				out.Pix[out.PixOffset(x, y)+c] = uint8((sum + 2) / 4)
			}
		}
	}
	return out
}

// encodeICO writes an ICONDIR, one ICONDIRENTRY per image, then the
// images, each PNG data of a square sizes[i] pixels wide.
func encodeICO(sizes []int, pngs [][]byte) ([]byte, error) {
	const dirLen, entryLen = 6, 16
	var buf bytes.Buffer
	w := func(v any) { _ = binary.Write(&buf, binary.LittleEndian, v) }
	w([3]uint16{0, 1, uint16(len(pngs))}) // reserved, type 1 (icon), count
	offset := dirLen + entryLen*len(pngs)
	for i, p := range pngs {
		if sizes[i] < 1 || sizes[i] > 256 {
			return nil, fmt.Errorf("an icon cannot be %d pixels", sizes[i])
		}
		side := uint8(sizes[i] % 256) // 0 means 256
		w([4]uint8{side, side, 0, 0}) // width, height, no palette, reserved
		w([2]uint16{1, 32})           // planes, bits per pixel
		w([2]uint32{uint32(len(p)), uint32(offset)})
		offset += len(p)
	}
	for _, p := range pngs {
		buf.Write(p)
	}
	return buf.Bytes(), nil
}
