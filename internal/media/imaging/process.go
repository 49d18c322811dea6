package imaging

import (
	"bytes"
	"fmt"
	"image"
	"image/jpeg"
	"image/png"
	"sync"

	"github.com/buckket/go-blurhash"
	"github.com/retwis/retwis"
	"golang.org/x/image/draw"
)

// Result is a processed picture: its two files and what describes them.
type Result struct {
	Original, Small []byte // the encoded files
	Ext, SmallExt   string // "jpg", "png" or "gif" (retwis.MediaType)

	Width, Height, SmallWidth, SmallHeight int
	Animated                               bool
	Blurhash                               string
}

// JPEGQuality is the quality of the JPEGs Process writes.
const JPEGQuality = 85

// Process decodes data after Sniff's checks, made again, and re-encodes
// it, which leaves behind every metadata block (EXIF, GPS, XMP,
// comments, colour profiles): a JPEG as a JPEG turned upright from its
// EXIF orientation, a PNG as a PNG (alpha kept), a WebP as a PNG if it
// has transparency or else as a JPEG, a still GIF as a PNG, an animated
// GIF as a GIF (its delays and loop count kept). The original is at
// most retwis.MaxMediaSide on its long side, the small copy at most
// retwis.SmallMediaSide (a PNG of the first frame of an animation),
// neither made larger; the blurhash is the small copy's. What is wrong
// with data is an error of kind retwis.Invalid.
func Process(data []byte, lim Limits) (Result, error) {
	info, err := Sniff(data, lim)
	if err != nil {
		return Result{}, err
	}
	if info.Frames > 1 {
		return processAnimation(data, info.Frames)
	}
	m, err := decode(info.Format, data)
	if err != nil {
		return Result{}, damaged(info.Format, err)
	}
	if p, ok := m.(*image.Paletted); ok && p.Rect != image.Rect(0, 0, info.Width, info.Height) {
		canvas := image.NewRGBA(image.Rect(0, 0, info.Width, info.Height)) // a GIF's frame smaller than its screen
		drawFrame(canvas, p)
		m = canvas
	}
	orientation := 1
	if info.Format == "jpeg" {
		orientation = jpegOrientation(data)
	}
	ext := outputExt(info.Format, m)
	orig := fit(m, retwis.MaxMediaSide, orientation)
	r := Result{Ext: ext, SmallExt: ext}
	if r.Original, err = encode(orig, ext); err != nil {
		return Result{}, err
	}
	if err := r.finish(orig); err != nil {
		return Result{}, err
	}
	return r, nil
}

// finish makes r's small copy of orig and its blurhash, and sets the
// sizes of both.
func (r *Result) finish(orig image.Image) error {
	small := fit(orig, retwis.SmallMediaSide, 1)
	var err error
	if r.Small, err = encode(small, r.SmallExt); err != nil {
		return err
	}
	r.Width, r.Height = orig.Bounds().Dx(), orig.Bounds().Dy()
	r.SmallWidth, r.SmallHeight = small.Bounds().Dx(), small.Bounds().Dy()
	r.Blurhash, err = blurhashOf(small)
	return err
}

// outputExt is the extension of the files made of m, decoded from the
// given format: a JPEG stays one; a WebP becomes one unless it has
// transparency; everything else becomes a PNG.
func outputExt(format string, m image.Image) string {
	opaque, ok := m.(interface{ Opaque() bool })
	if format == "jpeg" || format == "webp" && (!ok || opaque.Opaque()) {
		return "jpg"
	}
	return "png"
}

// fit returns m at most side pixels on its long side and turned upright
// from orientation o: m itself when it needs neither, else a new RGBA
// picture (scaled first, so that turning it moves fewer pixels).
func fit(m image.Image, side, o int) image.Image {
	b := m.Bounds()
	w, h := fitted(b.Dx(), b.Dy(), side)
	if w == b.Dx() && h == b.Dy() && o == 1 {
		return m
	}
	return orient(scaled(m, w, h), o)
}

// scaled returns a new RGBA picture of m at w×h (a copy at its size):
// halved while it is at least twice as large, as mipmaps are, then
// resampled bilinearly, which is then free of aliasing and several
// times faster than a kernel such as CatmullRom (BenchmarkScale4MP).
// The first halving is bilinear resampling to exactly half the size,
// the mean of each square of four pixels, read from m as it is (a
// JPEG's YCbCr), so that no copy of m's size is made.
func scaled(m image.Image, w, h int) *image.RGBA {
	if b := m.Bounds(); b.Dx() >= 2*w && b.Dy() >= 2*h {
		half := image.NewRGBA(image.Rect(0, 0, b.Dx()/2, b.Dy()/2))
		draw.ApproxBiLinear.Scale(half, half.Rect, m, b, draw.Src, nil)
		for half.Rect.Dx() >= 2*w && half.Rect.Dy() >= 2*h {
			half = halve(half)
		}
		m = half
	}
	b := m.Bounds()
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	if w == b.Dx() && h == b.Dy() {
		draw.Draw(dst, dst.Rect, m, b.Min, draw.Src)
	} else {
		draw.ApproxBiLinear.Scale(dst, dst.Rect, m, b, draw.Src, nil)
	}
	return dst
}

// halve returns a new picture of half src's size (an odd last row or
// column left out), each pixel the mean of a square of four.
func halve(src *image.RGBA) *image.RGBA {
	w, h := src.Rect.Dx()/2, src.Rect.Dy()/2
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		top := src.Pix[src.PixOffset(src.Rect.Min.X, src.Rect.Min.Y+2*y):]
		bottom := top[src.Stride:]
		out := dst.Pix[y*dst.Stride:]
		for i := range 4 * w {
			j := i/4*8 + i%4 // channel i%4 of the left pixel of the square
			out[i] = uint8((uint(top[j]) + uint(top[j+4]) + uint(bottom[j]) + uint(bottom[j+4]) + 2) / 4)
		}
	}
	return dst
}

// fitted is the size of a w×h picture brought to at most side pixels on
// its long side, its proportions kept (never larger, never 0).
func fitted(w, h, side int) (int, int) {
	long := max(w, h)
	if long <= side {
		return w, h
	}
	return max(1, (w*side+long/2)/long), max(1, (h*side+long/2)/long)
}

// encode writes m in the format of extension ext ("jpg" or "png").
func encode(m image.Image, ext string) ([]byte, error) {
	var buf bytes.Buffer
	var err error
	if ext == "jpg" {
		err = jpeg.Encode(&buf, m, &jpeg.Options{Quality: JPEGQuality})
	} else {
		err = pngEncoder.Encode(&buf, m)
	}
	if err != nil {
		return nil, fmt.Errorf("imaging: encoding %s: %w", ext, err)
	}
	return buf.Bytes(), nil
}

// pngEncoder writes every PNG, reusing its buffers across calls.
var pngEncoder = png.Encoder{BufferPool: &pngBuffers{}}

// pngBuffers is a png.EncoderBufferPool safe for concurrent use.
type pngBuffers struct{ pool sync.Pool }

// Get returns a buffer of the pool, or nil for the encoder to make one.
func (p *pngBuffers) Get() *png.EncoderBuffer {
	b, _ := p.pool.Get().(*png.EncoderBuffer)
	return b
}

// Put gives b back to the pool.
func (p *pngBuffers) Put(b *png.EncoderBuffer) { p.pool.Put(b) }

// blurhashSide is the long side of the copy a blurhash is computed
// from: its 4×3 components are far coarser, and the small copy's
// hundred thousand pixels would take milliseconds.
const blurhashSide = 32

// blurhashOf returns the blurhash of m, 4×3 components.
func blurhashOf(m image.Image) (string, error) {
	b := m.Bounds()
	w, h := fitted(b.Dx(), b.Dy(), blurhashSide)
	hash, err := blurhash.Encode(4, 3, scaled(m, w, h))
	if err != nil {
		return "", fmt.Errorf("imaging: blurhash: %w", err)
	}
	return hash, nil
}
