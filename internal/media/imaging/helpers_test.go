package imaging

import (
	"bytes"
	"encoding/binary"
	"image"
	"image/color"
	"image/color/palette"
	"image/gif"
	"image/jpeg"
	"image/png"
	"math/rand/v2"
	"os"
	"testing"
)

// photo is a w×h picture like a phone's photo for a codec: gradients
// with noise, so that neither compresses it to nothing.
func photo(w, h int) *image.RGBA {
	rng := rand.New(rand.NewPCG(uint64(w), uint64(h)))
	m := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			n := uint8(rng.IntN(48))
			m.SetRGBA(x, y, color.RGBA{uint8(x*200/w) + n, uint8(y*200/h) + n, uint8((x+y)*100/(w+h)) + n, 0xff})
		}
	}
	return m
}

// encodeJPEG is m as a JPEG.
func encodeJPEG(t testing.TB, m image.Image) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, m, &jpeg.Options{Quality: 90}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// encodePNG is m as a PNG.
func encodePNG(t testing.TB, m image.Image) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := png.Encode(&buf, m); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// encodeGIF is frames, each w×h at its own colour of palette.Plan9 and
// delayed by its index, as a GIF that loops loop times.
func encodeGIF(t testing.TB, w, h, frames, loop int) []byte {
	t.Helper()
	g := &gif.GIF{LoopCount: loop}
	for i := range frames {
		fr := image.NewPaletted(image.Rect(0, 0, w, h), palette.Plan9)
		for j := range fr.Pix {
			fr.Pix[j] = uint8(i*37 + j%5)
		}
		g.Image = append(g.Image, fr)
		g.Delay = append(g.Delay, i+1)
	}
	var buf bytes.Buffer
	if err := gif.EncodeAll(&buf, g); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// withAlpha is a w×h picture whose left half is transparent and right
// half opaque blue.
func withAlpha(w, h int) *image.NRGBA {
	m := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := w / 2; x < w; x++ {
			m.SetNRGBA(x, y, color.NRGBA{0, 0, 0xff, 0xff})
		}
	}
	return m
}

// readTestdata is the file of testdata called name.
func readTestdata(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// withEXIF is j, a JPEG, with an APP1 EXIF segment after its SOI that
// says orientation o and holds a GPS latitude, and a comment segment.
func withEXIF(j []byte, o int) []byte {
	be := binary.BigEndian
	tiff := []byte("MM\x00*\x00\x00\x00\x08")
	tiff = be.AppendUint16(tiff, 2) // IFD0: two entries
	tiff = be.AppendUint16(tiff, 0x0112)
	tiff = be.AppendUint16(tiff, 3) // SHORT
	tiff = be.AppendUint32(tiff, 1)
	tiff = be.AppendUint16(tiff, uint16(o))
	tiff = be.AppendUint16(tiff, 0)
	tiff = be.AppendUint16(tiff, 0x8825) // the GPS IFD
	tiff = be.AppendUint16(tiff, 4)      // LONG
	tiff = be.AppendUint32(tiff, 1)
	tiff = be.AppendUint32(tiff, uint32(len(tiff)+8))
	tiff = be.AppendUint32(tiff, 0)      // no next IFD
	tiff = be.AppendUint16(tiff, 1)      // the GPS IFD: one entry
	tiff = be.AppendUint16(tiff, 0x0002) // GPSLatitude
	tiff = be.AppendUint16(tiff, 2)      // ASCII, for brevity
	tiff = be.AppendUint32(tiff, 4)
	tiff = append(tiff, "51N\x00"...)
	tiff = be.AppendUint32(tiff, 0)
	app1 := append([]byte("Exif\x00\x00"), tiff...)
	com := []byte("secret comment: 51.5N 0.1W")
	out := append([]byte{}, j[:2]...)
	out = append(be.AppendUint16(append(out, 0xff, 0xe1), uint16(len(app1)+2)), app1...)
	out = append(be.AppendUint16(append(out, 0xff, 0xfe), uint16(len(com)+2)), com...)
	return append(out, j[2:]...)
}

// jpegMarkers lists the markers of j's segments before its first scan.
func jpegMarkers(j []byte) []byte {
	var markers []byte
	for at := 2; at+4 <= len(j) && j[at] == 0xff && j[at+1] != 0xda; {
		markers = append(markers, j[at+1])
		at += 2 + int(binary.BigEndian.Uint16(j[at+2:]))
	}
	return markers
}
