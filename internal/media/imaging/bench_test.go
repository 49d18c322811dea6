package imaging

import (
	"image"
	"testing"

	"github.com/retwis/retwis"
	"golang.org/x/image/draw"
)

// BenchmarkProcess4MP processes a phone photo's JPEG, 2304×1728 of
// gradients and noise: decoded, scaled to 1920×1440 and 400×300, both
// encoded, a blurhash; the MB/s are of the upload.
func BenchmarkProcess4MP(b *testing.B) {
	data := encodeJPEG(b, photo(2304, 1728))
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Process(data, Limits{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkScale4MP scales the decoded 4 MP photo to the original's
// size and then to the small copy's, with CatmullRom (a kernel: float
// buffers of the size of the picture) and as scaled does, the choice
// of resampling.
func BenchmarkScale4MP(b *testing.B) {
	m, err := decode("jpeg", encodeJPEG(b, photo(2304, 1728)))
	if err != nil {
		b.Fatal(err)
	}
	w, h := fitted(2304, 1728, retwis.MaxMediaSide)
	orig := scaled(m, w, h)
	sw, sh := fitted(w, h, retwis.SmallMediaSide)
	for _, s := range []struct {
		name string
		src  image.Image
		w, h int
	}{{"original", m, w, h}, {"small", orig, sw, sh}} {
		b.Run(s.name+"/CatmullRom", func(b *testing.B) {
			dst := image.NewRGBA(image.Rect(0, 0, s.w, s.h))
			for b.Loop() {
				draw.CatmullRom.Scale(dst, dst.Rect, s.src, s.src.Bounds(), draw.Src, nil)
			}
		})
		b.Run(s.name+"/scaled", func(b *testing.B) {
			for b.Loop() {
				scaled(s.src, s.w, s.h)
			}
		})
	}
}
