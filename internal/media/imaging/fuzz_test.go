package imaging

import (
	"bytes"
	"image"
	"image/gif"
	"image/jpeg"
	"testing"

	"github.com/retwis/retwis"
)

// fuzzLimits keep each fuzzed input cheap to process.
var fuzzLimits = Limits{MaxBytes: 64 << 10, MaxPixels: 256 * 256, MaxFrames: 8, MaxTotalPixels: 4 * 256 * 256}

// addSeeds adds a small picture of each format, and what is none, to
// f's corpus.
func addSeeds(f *testing.F) {
	f.Add(encodeJPEG(f, photo(40, 30)))
	f.Add(withEXIF(encodeJPEG(f, photo(16, 8)), 6))
	f.Add(encodePNG(f, withAlpha(20, 10)))
	f.Add(encodeGIF(f, 12, 10, 1, 0))
	f.Add(encodeGIF(f, 12, 10, 3, 1))
	f.Add(readTestdata(f, "blue-purple-pink.lossy.webp"))
	f.Add(readTestdata(f, "gopher-doc.with-alpha.lossless.webp"))
	f.Add([]byte(`<svg xmlns="http://www.w3.org/2000/svg"/>`))
	f.Add(hugePNGHeader())
}

// FuzzSniff checks that Sniff, whatever it reads, either refuses it as
// Invalid or names an accepted format and a size within the limits.
func FuzzSniff(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		info, err := Sniff(data, fuzzLimits)
		if err != nil {
			if retwis.ErrorKind(err) != retwis.Invalid || retwis.ErrorMessage(err) == "" {
				t.Fatalf("an error not Invalid, or without a message: %v", err)
			}
			return
		}
		pixels := int64(info.Width) * int64(info.Height)
		if names[info.Format] == "" || pixels <= 0 || pixels > fuzzLimits.MaxPixels ||
			info.Frames < 1 || info.Frames > fuzzLimits.MaxFrames {
			t.Fatalf("Sniff let through %+v", info)
		}
	})
}

// FuzzProcess checks that Process, whatever it reads, either refuses it
// as Invalid or makes files that decode, of the sizes it says, within
// the sides of media.
func FuzzProcess(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := Process(data, fuzzLimits)
		if err != nil {
			if retwis.ErrorKind(err) != retwis.Invalid {
				t.Fatalf("an error not Invalid: %v", err)
			}
			return
		}
		for _, file := range []struct {
			data      []byte
			ext       string
			w, h, max int
		}{{r.Original, r.Ext, r.Width, r.Height, retwis.MaxMediaSide}, {r.Small, r.SmallExt, r.SmallWidth, r.SmallHeight, retwis.SmallMediaSide}} {
			cfg, format, err := image.DecodeConfig(bytes.NewReader(file.data))
			if err != nil || "image/"+format != retwis.MediaType(file.ext) || cfg.Width != file.w || cfg.Height != file.h ||
				file.w < 1 || file.h < 1 || max(file.w, file.h) > file.max {
				t.Fatalf("a %s file of %d×%d: %+v, %s, %v", file.ext, file.w, file.h, cfg, format, err)
			}
		}
	})
}

// FuzzGIFFrames checks that the walker of GIF blocks counts the frames
// that image/gif decodes, whenever it decodes them: the limit on frames
// holds only if they agree.
func FuzzGIFFrames(f *testing.F) {
	f.Add(encodeGIF(f, 4, 4, 1, 0))
	f.Add(encodeGIF(f, 4, 4, 5, 2))
	f.Add([]byte("GIF89a\x01\x00\x01\x00\x00\x00\x00!\xff\x00\x02ab\x00,\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02D\x01\x00;"))
	f.Fuzz(func(t *testing.T, data []byte) {
		const limit = 64
		if cfg, err := gif.DecodeConfig(bytes.NewReader(data)); err != nil || cfg.Width*cfg.Height > 1<<16 {
			return // not to be decoded in a cheap run
		}
		n, err := gifFrames(data, limit)
		g, decodeErr := gif.DecodeAll(bytes.NewReader(data))
		if decodeErr == nil && (err != nil && n <= limit || err == nil && n != len(g.Image)) {
			t.Fatalf("image/gif decodes %d frames; the walker says %d, %v", len(g.Image), n, err)
		}
	})
}

// FuzzJPEGSegments checks the walks of a JPEG's segments: the EXIF
// orientation read from any bytes is one of the eight, and the count of
// scans refuses nothing that image/jpeg decodes (of fewer scans than
// the bound).
func FuzzJPEGSegments(f *testing.F) {
	for o := 1; o <= 8; o++ {
		f.Add(withEXIF(encodeJPEG(f, photo(8, 8)), o))
	}
	f.Add(manyScans(encodeJPEG(f, photo(8, 8)), 3))
	f.Add([]byte("\xff\xd8\xff\xe1\x00\x10Exif\x00\x00II*\x00\xff\xff\xff\xff"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if o := jpegOrientation(data); o < 1 || o > 8 {
			t.Fatalf("orientation %d", o)
		}
		if o := exifOrientation(data); o < 1 || o > 8 {
			t.Fatalf("orientation %d of the TIFF", o)
		}
		scans, err := jpegScans(data)
		if cfg, cfgErr := jpeg.DecodeConfig(bytes.NewReader(data)); cfgErr != nil || cfg.Width*cfg.Height > 1<<16 {
			return // not to be decoded in a cheap run
		}
		if _, decodeErr := jpeg.Decode(bytes.NewReader(data)); decodeErr == nil && err != nil && scans <= maxJPEGScans {
			t.Fatalf("image/jpeg decodes it; the walk of its segments says %v", err)
		}
	})
}
