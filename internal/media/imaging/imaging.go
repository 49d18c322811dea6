// Package imaging is the pure image processing of media: it recognizes
// an upload from its header within limits (Sniff), re-encodes it without
// any of its metadata, upright, at most retwis.MaxMediaSide on its long
// side, with a small copy and a blurhash (Process), and draws the
// generated avatars of accounts without a picture (Avatar). It knows
// neither Redis nor HTTP, holds no state and is safe for concurrent use.
package imaging

import (
	"bytes"
	"fmt"
	"image"
	"image/gif"
	"image/jpeg"
	"image/png"
	"io"

	"github.com/retwis/retwis"
	"golang.org/x/image/webp"
)

// Limits bound the work of one picture; the zero value is DefaultLimits'
// (and so is each field left zero).
type Limits struct {
	MaxBytes  int64 // bytes of the upload (default 16 MiB)
	MaxPixels int64 // width*height of one frame (default 33_177_600, Mastodon's 7680x4320)
	MaxFrames int   // frames of an animated GIF (default 200)
	// MaxTotalPixels bounds the pixels over all frames of an animated
	// GIF, each frame counted at the size of the whole picture, as it is
	// composed (default 100_000_000).
	MaxTotalPixels int64
}

// DefaultLimits are the limits of a zero Limits.
var DefaultLimits = Limits{
	MaxBytes:       16 << 20,
	MaxPixels:      7680 * 4320,
	MaxFrames:      200,
	MaxTotalPixels: 100_000_000,
}

// orDefaults returns lim with DefaultLimits' value for each zero field.
func (lim Limits) orDefaults() Limits {
	if lim.MaxBytes <= 0 {
		lim.MaxBytes = DefaultLimits.MaxBytes
	}
	if lim.MaxPixels <= 0 {
		lim.MaxPixels = DefaultLimits.MaxPixels
	}
	if lim.MaxFrames <= 0 {
		lim.MaxFrames = DefaultLimits.MaxFrames
	}
	if lim.MaxTotalPixels <= 0 {
		lim.MaxTotalPixels = DefaultLimits.MaxTotalPixels
	}
	return lim
}

// Info is what Sniff reads of a picture's header.
type Info struct {
	Format        string // "jpeg", "png", "gif" or "webp"
	Width, Height int
	Frames        int // 1 but for an animated GIF
}

// Sniff reads only the header of data (and, for a GIF, walks its blocks
// to count the frames, and for a JPEG its segments to count the scans,
// without decoding them): its format and size, or an error of kind
// retwis.Invalid, with a message fit for the uploader, for anything else
// (SVG, HTML, PDF, a polyglot whose first bytes are not an image's, a
// truncated header, an animated WebP, a JPEG of more scans than any
// encoder makes) or anything over lim. It is cheap whatever the header claims: nothing of the size of
// the picture is allocated.
func Sniff(data []byte, lim Limits) (Info, error) {
	lim = lim.orDefaults()
	if n := int64(len(data)); n > lim.MaxBytes {
		return Info{}, invalid(nil, "This file is %s; at most %s are accepted.", megabytes(n), megabytes(lim.MaxBytes))
	}
	format := formatOf(data)
	if format == "" {
		return Info{}, invalid(nil, "This file is not a picture retwis accepts: upload a JPEG, PNG, GIF or WebP image.")
	}
	cfg, err := decodeConfig(format, data)
	if err != nil || cfg.Width <= 0 || cfg.Height <= 0 {
		return Info{}, damaged(format, err)
	}
	info := Info{Format: format, Width: cfg.Width, Height: cfg.Height, Frames: 1}
	switch format {
	case "webp":
		if animatedWebP(data) {
			return Info{}, invalid(nil, "Animated WebP images are not accepted: upload a GIF, or a still image.")
		}
	case "gif":
		info.Frames, err = gifFrames(data, lim.MaxFrames)
	case "jpeg":
		_, err = jpegScans(data)
	}
	if err != nil {
		return Info{}, err
	}
	return info, lim.check(info)
}

// check refuses a picture larger than lim.
func (lim Limits) check(info Info) error {
	pixels := int64(info.Width) * int64(info.Height)
	if pixels > lim.MaxPixels {
		return invalid(nil, "This picture is %d×%d pixels; at most %.1f million pixels are accepted.",
			info.Width, info.Height, float64(lim.MaxPixels)/1e6)
	}
	if info.Frames > lim.MaxFrames {
		return invalid(nil, "This animation has more than %d frames, the most accepted.", lim.MaxFrames)
	}
	if pixels*int64(info.Frames) > lim.MaxTotalPixels {
		return invalid(nil, "This animation is too large: %d frames of %d×%d pixels; at most %.0f million pixels in all are accepted.",
			info.Frames, info.Width, info.Height, float64(lim.MaxTotalPixels)/1e6)
	}
	return nil
}

// formatOf names the format data's first bytes are the signature of
// ("" for none accepted).
func formatOf(data []byte) string {
	switch {
	case bytes.HasPrefix(data, []byte("\xff\xd8\xff")):
		return "jpeg"
	case bytes.HasPrefix(data, []byte("\x89PNG\r\n\x1a\n")):
		return "png"
	case bytes.HasPrefix(data, []byte("GIF87a")), bytes.HasPrefix(data, []byte("GIF89a")):
		return "gif"
	case len(data) >= 16 && string(data[:4]) == "RIFF" && string(data[8:15]) == "WEBPVP8":
		return "webp"
	}
	return ""
}

// animatedWebP reports whether data, a WebP, says it is animated (the
// flag of its extended header, which only comes first).
func animatedWebP(data []byte) bool {
	const animationBit = 1 << 1
	return len(data) > 20 && string(data[12:16]) == "VP8X" && data[20]&animationBit != 0
}

// codecs are the decoders of the formats retwis takes, by the name
// Sniff gives them: each format is decoded by its own, never guessed
// again from the bytes.
var codecs = map[string]struct {
	decode func(io.Reader) (image.Image, error) // a GIF's first frame
	config func(io.Reader) (image.Config, error)
}{
	"jpeg": {jpeg.Decode, jpeg.DecodeConfig},
	"png":  {png.Decode, png.DecodeConfig},
	"gif":  {gif.Decode, gif.DecodeConfig},
	"webp": {webp.Decode, webp.DecodeConfig},
}

// decodeConfig reads the header of data, of the given format.
func decodeConfig(format string, data []byte) (image.Config, error) {
	return codecs[format].config(bytes.NewReader(data))
}

// decode decodes data, of the given format (a GIF's first frame).
func decode(format string, data []byte) (image.Image, error) {
	return codecs[format].decode(bytes.NewReader(data))
}

// invalid returns an error of kind retwis.Invalid with the message
// formatted from format and args and the cause err (nil: none).
func invalid(err error, format string, args ...any) error {
	e := retwis.Errorf(retwis.Invalid, format, args...)
	e.Err = err
	return e
}

// damaged is the error of a picture of the given format that does not
// decode, with the decoder's err as its cause.
func damaged(format string, err error) error {
	return invalid(fmt.Errorf("imaging: decoding %s: %w", format, err),
		"This %s file is damaged or truncated; it cannot be read.", names[format])
}

// names are the formats' names as users know them.
var names = map[string]string{"jpeg": "JPEG", "png": "PNG", "gif": "GIF", "webp": "WebP"}

// megabytes writes n bytes in MB (MiB, as the limits are set).
func megabytes(n int64) string {
	return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
}
