package imaging

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/gif"

	"github.com/retwis/retwis"
)

// processAnimation processes data, an animated GIF that Sniff let
// through: decoded, re-encoded as a GIF with its delays and loop count
// (nothing else of its extensions), its frames composed and scaled if
// it is larger than retwis.MaxMediaSide; the small copy is a PNG of its
// first frame. frames is the count of frames Sniff walked.
func processAnimation(data []byte, frames int) (Result, error) {
	g, err := gif.DecodeAll(bytes.NewReader(data))
	if err != nil {
		return Result{}, damaged("gif", err)
	}
	if len(g.Image) != frames { // the walker and the decoder disagree: a bug, which FuzzGIFFrames hunts
		return Result{}, fmt.Errorf("imaging: %d frames counted, %d decoded", frames, len(g.Image))
	}
	canvas := image.Rect(0, 0, g.Config.Width, g.Config.Height)
	w, h := fitted(canvas.Dx(), canvas.Dy(), retwis.MaxMediaSide)
	out := &gif.GIF{Image: g.Image, Delay: g.Delay, Disposal: g.Disposal, LoopCount: g.LoopCount,
		Config: g.Config, BackgroundIndex: g.BackgroundIndex}
	if w != canvas.Dx() || h != canvas.Dy() {
		out = scaleAnimation(g, w, h)
	}
	var buf bytes.Buffer
	if err := gif.EncodeAll(&buf, out); err != nil {
		return Result{}, fmt.Errorf("imaging: encoding gif: %w", err)
	}
	first := image.NewRGBA(canvas)
	drawFrame(first, g.Image[0])
	r := Result{Original: buf.Bytes(), Ext: "gif", SmallExt: "png", Animated: true}
	if err := r.finish(fit(first, retwis.MaxMediaSide, 1)); err != nil {
		return Result{}, err
	}
	return r, nil
}

// scaleAnimation returns g at w×h: each frame composed on the canvas as
// a viewer shows it (its disposal applied after it), scaled, and mapped
// back to its palette, whole, so that each output frame replaces the
// one before.
func scaleAnimation(g *gif.GIF, w, h int) *gif.GIF {
	out := &gif.GIF{LoopCount: g.LoopCount, Delay: g.Delay, Config: image.Config{Width: w, Height: h}}
	canvas := image.NewRGBA(image.Rect(0, 0, g.Config.Width, g.Config.Height))
	for i, fr := range g.Image {
		var before *image.RGBA
		disposal := byte(gif.DisposalNone)
		if i < len(g.Disposal) {
			disposal = g.Disposal[i]
		}
		if disposal == gif.DisposalPrevious {
			before = image.NewRGBA(canvas.Rect)
			copy(before.Pix, canvas.Pix)
		}
		drawFrame(canvas, fr)
		out.Image = append(out.Image, quantize(scaled(canvas, w, h), fr.Palette))
		out.Disposal = append(out.Disposal, gif.DisposalBackground)
		switch disposal {
		case gif.DisposalBackground: // viewers clear to transparency
			clearRect(canvas, fr.Rect)
		case gif.DisposalPrevious:
			canvas = before
		}
	}
	return out
}

// drawFrame draws fr over canvas: its opaque pixels replace the
// canvas's, its transparent ones leave them (a GIF has no other alpha).
func drawFrame(canvas *image.RGBA, fr *image.Paletted) {
	colors := make([][4]uint8, len(fr.Palette))
	for i, c := range fr.Palette {
		colors[i] = rgba8(c)
	}
	r := fr.Rect.Intersect(canvas.Rect)
	for y := r.Min.Y; y < r.Max.Y; y++ {
		src := fr.Pix[fr.PixOffset(r.Min.X, y):]
		dst := canvas.Pix[canvas.PixOffset(r.Min.X, y):]
		for x := range r.Dx() {
			if int(src[x]) >= len(colors) || colors[src[x]][3] == 0 {
				continue
			}
			copy(dst[4*x:4*x+4], colors[src[x]][:])
		}
	}
}

// clearRect makes r of canvas transparent.
func clearRect(canvas *image.RGBA, r image.Rectangle) {
	r = r.Intersect(canvas.Rect)
	for y := r.Min.Y; y < r.Max.Y; y++ {
		clear(canvas.Pix[canvas.PixOffset(r.Min.X, y):][:4*r.Dx()])
	}
}

// rgba8 is c, premultiplied, 8 bits a channel.
func rgba8(c color.Color) [4]uint8 {
	r, g, b, a := c.RGBA()
	return [4]uint8{uint8(r >> 8), uint8(g >> 8), uint8(b >> 8), uint8(a >> 8)}
}

// quantize maps rgba (at the origin) onto palette p: its mostly transparent pixels to p's
// transparent colour if it has one, the others to their nearest opaque
// colour of p, looked up once per colour of 15 bits.
func quantize(rgba *image.RGBA, p color.Palette) *image.Paletted {
	dst := image.NewPaletted(rgba.Rect, p)
	transparent, nearest := -1, make([]int16, 1<<15)
	for i, c := range p {
		if rgba8(c)[3] == 0 && transparent < 0 {
			transparent = i
		}
	}
	for i := range nearest {
		nearest[i] = -1
	}
	for i := range len(dst.Pix) {
		px := rgba.Pix[4*i : 4*i+4]
		if px[3] < 128 && transparent >= 0 {
			dst.Pix[i] = uint8(transparent)
			continue
		}
		key := int(px[0]>>3)<<10 | int(px[1]>>3)<<5 | int(px[2]>>3)
		if nearest[key] < 0 {
			nearest[key] = int16(nearestOpaque(p, px[0], px[1], px[2]))
		}
		dst.Pix[i] = uint8(nearest[key])
	}
	return dst
}

// nearestOpaque is the index of p's opaque colour nearest r, g, b (0
// if it has none).
func nearestOpaque(p color.Palette, r, g, b uint8) int {
	best, bestDist := 0, -1
	for i, c := range p {
		pc := rgba8(c)
		if pc[3] == 0 {
			continue
		}
		dr, dg, db := int(pc[0])-int(r), int(pc[1])-int(g), int(pc[2])-int(b)
		if d := dr*dr + dg*dg + db*db; bestDist < 0 || d < bestDist {
			best, bestDist = i, d
		}
	}
	return best
}
