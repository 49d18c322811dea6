package imaging

import (
	"bytes"
	"hash/crc32"
	"image"
	"image/color"
	"image/draw"
	"image/gif"
	"image/png"
	"runtime"
	"strings"
	"testing"

	"github.com/buckket/go-blurhash"
	"github.com/retwis/retwis"
)

// TestProcessFormats processes a picture of each format and checks what
// comes out: the formats, the sizes, never larger, the small copy, the
// blurhash.
func TestProcessFormats(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name                 string
		data                 []byte
		format               string // Sniff's
		ext, smallExt        string
		w, h, smallW, smallH int
		animated             bool
	}{
		{"large JPEG", encodeJPEG(t, photo(2000, 1000)), "jpeg", "jpg", "jpg", 1920, 960, 400, 200, false},
		{"small JPEG", encodeJPEG(t, photo(300, 200)), "jpeg", "jpg", "jpg", 300, 200, 300, 200, false},
		{"grey JPEG", encodeJPEG(t, converted(photo(500, 500), image.NewGray)), "jpeg", "jpg", "jpg", 500, 500, 400, 400, false},
		{"16-bit PNG", encodePNG(t, converted(photo(1950, 40), image.NewRGBA64)), "png", "png", "png", 1920, 39, 400, 8, false},
		{"tall PNG", encodePNG(t, withAlpha(200, 2000)), "png", "png", "png", 192, 1920, 40, 400, false},
		{"small PNG", encodePNG(t, withAlpha(120, 60)), "png", "png", "png", 120, 60, 120, 60, false},
		{"still GIF", encodeGIF(t, 640, 480, 1, 0), "gif", "png", "png", 640, 480, 400, 300, false},
		{"animated GIF", encodeGIF(t, 64, 48, 3, 0), "gif", "gif", "png", 64, 48, 64, 48, true},
		{"large animated GIF", encodeGIF(t, 2400, 60, 3, 2), "gif", "gif", "png", 1920, 48, 400, 10, true},
		{"opaque WebP", readTestdata(t, "blue-purple-pink.lossy.webp"), "webp", "jpg", "jpg", 150, 100, 150, 100, false},
		{"transparent WebP", readTestdata(t, "gopher-doc.with-alpha.lossless.webp"), "webp", "png", "png", 75, 100, 75, 100, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			info, err := Sniff(tc.data, Limits{})
			if err != nil || info.Format != tc.format {
				t.Fatalf("Sniff = %+v, %v; want format %s", info, err, tc.format)
			}
			r, err := Process(tc.data, Limits{})
			if err != nil {
				t.Fatal(err)
			}
			got := [...]any{r.Ext, r.SmallExt, r.Width, r.Height, r.SmallWidth, r.SmallHeight, r.Animated}
			want := [...]any{tc.ext, tc.smallExt, tc.w, tc.h, tc.smallW, tc.smallH, tc.animated}
			if got != want {
				t.Errorf("ext, small ext, sizes, animated = %v; want %v", got, want)
			}
			checkFile(t, r.Original, r.Ext, r.Width, r.Height)
			checkFile(t, r.Small, r.SmallExt, r.SmallWidth, r.SmallHeight)
			if _, err := blurhash.Decode(r.Blurhash, 32, 32, 1); err != nil || len(r.Blurhash) != 4+2*4*3 {
				t.Errorf("blurhash %q: %v", r.Blurhash, err)
			}
		})
	}
}

// converted is m drawn onto a new picture of its size made by newImage.
func converted[M draw.Image](m image.Image, newImage func(image.Rectangle) M) M {
	out := newImage(m.Bounds())
	draw.Draw(out, m.Bounds(), m, m.Bounds().Min, draw.Src)
	return out
}

// checkFile checks that file decodes as the format of ext and has the
// size w×h.
func checkFile(t *testing.T, file []byte, ext string, w, h int) {
	t.Helper()
	cfg, format, err := image.DecodeConfig(bytes.NewReader(file))
	if err != nil {
		t.Fatalf("the %s file does not decode: %v", ext, err)
	}
	if retwis.MediaType(ext) != "image/"+format || cfg.Width != w || cfg.Height != h {
		t.Errorf("the %s file is a %s of %d×%d; want %d×%d", ext, format, cfg.Width, cfg.Height, w, h)
	}
}

// TestProcessKeepsAlpha checks that a PNG's transparency survives.
func TestProcessKeepsAlpha(t *testing.T) {
	t.Parallel()
	r, err := Process(encodePNG(t, withAlpha(100, 40)), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	m, err := png.Decode(bytes.NewReader(r.Original))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, _, a := m.At(10, 20).RGBA(); a != 0 {
		t.Errorf("the transparent half has alpha %d", a)
	}
	if _, _, b, a := m.At(90, 20).RGBA(); a != 0xffff || b != 0xffff {
		t.Errorf("the blue half is %v", m.At(90, 20))
	}
}

// TestProcessKeepsAnimation checks that an animated GIF comes out with
// its frames, delays and loop count, when it is scaled too.
func TestProcessKeepsAnimation(t *testing.T) {
	t.Parallel()
	for _, w := range []int{100, 2000} {
		r, err := Process(encodeGIF(t, w, 20, 4, 3), Limits{})
		if err != nil {
			t.Fatal(err)
		}
		g, err := gif.DecodeAll(bytes.NewReader(r.Original))
		if err != nil {
			t.Fatal(err)
		}
		if len(g.Image) != 4 || g.LoopCount != 3 || g.Delay[3] != 4 {
			t.Errorf("%d px wide: %d frames, loop count %d, delays %v; want 4, 3, [1 2 3 4]", w, len(g.Image), g.LoopCount, g.Delay)
		}
	}
}

// TestProcessStripsMetadata processes a JPEG with an EXIF segment
// (orientation, GPS) and a comment: neither is in what comes out, which
// is turned as the orientation said.
func TestProcessStripsMetadata(t *testing.T) {
	t.Parallel()
	r, err := Process(withEXIF(encodeJPEG(t, photo(640, 480)), 6), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range [][]byte{r.Original, r.Small} {
		for _, m := range jpegMarkers(file) {
			if m == 0xe1 || m == 0xfe || m >= 0xe2 && m <= 0xef {
				t.Errorf("a segment of marker %#x is left", m)
			}
		}
		if bytes.Contains(file, []byte("Exif")) || bytes.Contains(file, []byte("51N")) || bytes.Contains(file, []byte("secret")) {
			t.Error("metadata is left in the file")
		}
	}
	if r.Width != 480 || r.Height != 640 {
		t.Errorf("turned upright: %d×%d; want 480×640", r.Width, r.Height)
	}
}

// TestProcessOrientations processes a JPEG with a red top-left corner
// with each EXIF orientation and finds the corner where a viewer that
// honours EXIF would show it.
func TestProcessOrientations(t *testing.T) {
	t.Parallel()
	const w, h = 80, 40
	m := image.NewRGBA(image.Rect(0, 0, w, h))
	for i := range m.Pix {
		m.Pix[i] = 0xff // white
	}
	for y := range h / 2 {
		for x := range w / 4 {
			m.SetRGBA(x, y, color.RGBA{0xff, 0, 0, 0xff})
		}
	}
	plain := encodeJPEG(t, m)
	for o, corner := range map[int]string{
		1: "top-left", 2: "top-right", 3: "bottom-right", 4: "bottom-left",
		5: "top-left", 6: "top-right", 7: "bottom-right", 8: "bottom-left",
	} {
		r, err := Process(withEXIF(plain, o), Limits{})
		if err != nil {
			t.Fatal(err)
		}
		out, _, err := image.Decode(bytes.NewReader(r.Original))
		if err != nil {
			t.Fatal(err)
		}
		b := out.Bounds()
		if turned := o >= 5; (b.Dx() == h) != turned {
			t.Errorf("orientation %d: %v", o, b)
		}
		x, y := 2, 2
		if strings.HasSuffix(corner, "right") {
			x = b.Dx() - 3
		}
		if strings.HasPrefix(corner, "bottom") {
			y = b.Dy() - 3
		}
		if r, g, _, _ := out.At(x, y).RGBA(); r < 0xc000 || g > 0x4000 {
			t.Errorf("orientation %d: the %s corner is %v, not red", o, corner, out.At(x, y))
		}
	}
}

// TestSniffRefuses checks that what is no picture, or one over the
// limits, is refused as Invalid with a message.
func TestSniffRefuses(t *testing.T) {
	t.Parallel()
	png1 := encodePNG(t, withAlpha(8, 8))
	huge := hugePNGHeader()
	animatedWebP := []byte("RIFF\x1e\x00\x00\x00WEBPVP8X\x0a\x00\x00\x00\x02\x00\x00\x00\x09\x00\x00\x09\x00\x00ANIM\x06\x00\x00\x00\x00\x00\x00\x00\x00\x00")
	gif3 := encodeGIF(t, 10, 10, 3, 0)
	for _, tc := range []struct {
		name string
		data []byte
		lim  Limits
		says string
	}{
		{"empty", nil, Limits{}, "not a picture"},
		{"SVG", []byte(`<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>`), Limits{}, "not a picture"},
		{"HTML", []byte("<!doctype html><html><body>hello</body></html>"), Limits{}, "not a picture"},
		{"PDF", []byte("%PDF-1.7\n1 0 obj\n<<>>\nendobj\n"), Limits{}, "not a picture"},
		{"HTML before a PNG", append([]byte("<html><script>alert(1)</script>"), png1...), Limits{}, "not a picture"},
		{"a PNG's signature alone", png1[:8], Limits{}, "damaged"},
		{"a truncated GIF", gif3[:len(gif3)-20], Limits{}, "damaged"},
		{"a huge PNG", huge, Limits{}, "million pixels"},
		{"over the bytes", png1, Limits{MaxBytes: 10}, "MB are accepted"},
		{"over the pixels", png1, Limits{MaxPixels: 63}, "million pixels"},
		{"over the frames", gif3, Limits{MaxFrames: 2}, "more than 2 frames"},
		{"over the pixels of the frames", gif3, Limits{MaxTotalPixels: 299}, "in all"},
		{"an animated WebP", animatedWebP, Limits{}, "Animated WebP"},
		{"a JPEG of many scans", manyScans(encodeJPEG(t, photo(16, 16)), maxJPEGScans+1), Limits{}, "scans"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := Sniff(tc.data, tc.lim)
			if retwis.ErrorKind(err) != retwis.Invalid || !strings.Contains(retwis.ErrorMessage(err), tc.says) {
				t.Errorf("Sniff: %v (kind %v); want Invalid saying %q", err, retwis.ErrorKind(err), tc.says)
			}
			if _, err := Process(tc.data, tc.lim); retwis.ErrorKind(err) != retwis.Invalid {
				t.Errorf("Process: %v; want Invalid", err)
			}
		})
	}
}

// manyScans is j, a JPEG of one scan, with its scan repeated to make n.
func manyScans(j []byte, n int) []byte {
	sos := bytes.Index(j, []byte{0xff, 0xda})
	scan := j[sos : len(j)-2] // up to EOI
	out := append([]byte{}, j[:sos]...)
	for range n {
		out = append(out, scan...)
	}
	return append(out, 0xff, 0xd9)
}

// TestSniffCountsScans checks that a JPEG of as many scans as allowed
// passes (the scans of progressive JPEGs), and that one more does not.
func TestSniffCountsScans(t *testing.T) {
	t.Parallel()
	j := encodeJPEG(t, photo(16, 16))
	if _, err := Sniff(manyScans(j, maxJPEGScans), Limits{}); err != nil {
		t.Errorf("%d scans: %v", maxJPEGScans, err)
	}
	if _, err := Sniff(manyScans(j, maxJPEGScans+1), Limits{}); retwis.ErrorKind(err) != retwis.Invalid {
		t.Errorf("%d scans: %v; want Invalid", maxJPEGScans+1, err)
	}
}

// hugePNGHeader is the start of a PNG that says it is 100,000 pixels a
// side.
func hugePNGHeader() []byte {
	var buf bytes.Buffer
	if err := png.Encode(&buf, image.NewGray(image.Rect(0, 0, 1, 1))); err != nil {
		panic(err) // in memory: cannot fail
	}
	b := buf.Bytes()[:33] // the signature and the IHDR chunk
	b[16], b[17], b[18], b[19] = 0, 1, 0x86, 0xa0
	b[20], b[21], b[22], b[23] = 0, 1, 0x86, 0xa0
	crc := crc32.ChecksumIEEE(b[12:29])
	b[29], b[30], b[31], b[32] = byte(crc>>24), byte(crc>>16), byte(crc>>8), byte(crc)
	return b
}

// TestSniffAllocatesLittle checks that a header claiming ten billion
// pixels is refused without allocating anything like them (not
// parallel: the allocation counters are the process's).
func TestSniffAllocatesLittle(t *testing.T) {
	huge := hugePNGHeader()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	const runs = 100
	for range runs {
		if _, err := Sniff(huge, Limits{}); err == nil {
			t.Fatal("a huge PNG let through")
		}
	}
	runtime.ReadMemStats(&after)
	if per := (after.TotalAlloc - before.TotalAlloc) / runs; per > 16<<10 {
		t.Errorf("Sniff allocated %d bytes a call", per)
	}
}

// TestProcessRefusesDamaged checks that pictures whose headers are
// sound but whose data is cut are refused as Invalid by Process (a PNG's
// by the decoder, a JPEG's already by Sniff's walk of its segments).
func TestProcessRefusesDamaged(t *testing.T) {
	t.Parallel()
	for name, data := range map[string][]byte{
		"JPEG": encodeJPEG(t, photo(64, 64)),
		"PNG":  encodePNG(t, photo(64, 64)),
	} {
		cut := data[:len(data)/2]
		if _, err := Process(cut, Limits{}); retwis.ErrorKind(err) != retwis.Invalid {
			t.Errorf("%s: Process of a cut file: %v; want Invalid", name, err)
		}
	}
}

// TestAvatar checks that generated avatars are PNGs of the size asked,
// the same for a seed each time, different for different seeds, and
// small.
func TestAvatar(t *testing.T) {
	t.Parallel()
	seen := map[string]int64{}
	for seed := range int64(100) {
		a := Avatar(seed, 48)
		if !bytes.Equal(a, Avatar(seed, 48)) {
			t.Fatalf("seed %d: two different avatars", seed)
		}
		if other, ok := seen[string(a)]; ok {
			t.Fatalf("seeds %d and %d: the same avatar", other, seed)
		}
		seen[string(a)] = seed
		if len(a) > 1024 {
			t.Errorf("seed %d: %d bytes", seed, len(a))
		}
	}
	for _, tc := range []struct{ size, want int }{{48, 48}, {120, 120}, {0, MinAvatarSide}, {1 << 20, MaxAvatarSide}} {
		m, err := png.Decode(bytes.NewReader(Avatar(-7, tc.size)))
		if err != nil || m.Bounds() != image.Rect(0, 0, tc.want, tc.want) {
			t.Errorf("size %d: %v, %v; want %d a side", tc.size, m.Bounds(), err, tc.want)
		}
	}
}

// TestScaledAverages checks that scaling down a checkerboard of single
// pixels to half its size or less gives its mean grey everywhere, not a
// pattern of aliases (less than that, bilinear resampling is left to
// blend neighbours), and that a single colour stays itself.
func TestScaledAverages(t *testing.T) {
	t.Parallel()
	board := image.NewRGBA(image.Rect(0, 0, 1000, 600))
	for y := range 600 {
		for x := range 1000 {
			if (x+y)%2 == 0 {
				board.SetRGBA(x, y, color.RGBA{0xff, 0xff, 0xff, 0xff})
			} else {
				board.SetRGBA(x, y, color.RGBA{0, 0, 0, 0xff})
			}
		}
	}
	for _, w := range []int{500, 400, 123} {
		out := scaled(board, w, w*3/5)
		for i := 0; i < len(out.Pix); i += 4 {
			if v := out.Pix[i]; v < 0x70 || v > 0x90 || out.Pix[i+3] != 0xff {
				t.Fatalf("%d px wide: pixel %d is %v, not mid grey", w, i/4, out.Pix[i:i+4])
			}
		}
	}
	blue := color.RGBA{0x10, 0x20, 0xf0, 0xff}
	plain := image.NewRGBA(image.Rect(0, 0, 90, 70))
	draw.Draw(plain, plain.Rect, image.NewUniform(blue), image.Point{}, draw.Src)
	for _, w := range []int{60, 30, 7} {
		if got := scaled(plain, w, w*7/9).RGBAAt(w/2, w/3); got != blue {
			t.Errorf("a blue picture scaled to %d px wide is %v", w, got)
		}
	}
}

// TestProcessStillGIFOnItsScreen checks that a still GIF whose frame is
// smaller than its screen comes out at the screen's size, the frame in
// its place and the rest transparent.
func TestProcessStillGIFOnItsScreen(t *testing.T) {
	t.Parallel()
	fr := image.NewPaletted(image.Rect(10, 10, 20, 20), color.Palette{color.RGBA{0xff, 0, 0, 0xff}})
	var buf bytes.Buffer
	g := &gif.GIF{Image: []*image.Paletted{fr}, Delay: []int{0}, Config: image.Config{Width: 50, Height: 40, ColorModel: fr.Palette}}
	if err := gif.EncodeAll(&buf, g); err != nil {
		t.Fatal(err)
	}
	r, err := Process(buf.Bytes(), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	m, err := png.Decode(bytes.NewReader(r.Original))
	if err != nil {
		t.Fatal(err)
	}
	_, _, _, outside := m.At(2, 2).RGBA()
	red, _, _, inside := m.At(15, 15).RGBA()
	if m.Bounds() != image.Rect(0, 0, 50, 40) || outside != 0 || inside != 0xffff || red != 0xffff {
		t.Errorf("%v, alpha outside the frame %d, inside %d (red %d)", m.Bounds(), outside, inside, red)
	}
}
