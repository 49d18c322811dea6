package imaging

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"image"
	"image/color"
	"math"
)

// Avatar sizes: Avatar clamps the size it is asked for to these.
const (
	MinAvatarSide = 8
	MaxAvatarSide = 1024
)

// avatarCells is the number of cells on a side of an avatar's pattern.
const avatarCells = 5

// Avatar returns the generated avatar of seed (a user id): a PNG of
// size×size pixels (size clamped to MinAvatarSide..MaxAvatarSide), a
// pattern of 5×5 cells symmetric about its vertical axis on a light
// background, the cells and their colour drawn from the SHA-256 of the
// seed. The same seed always gives the same bytes; different seeds give
// different pictures but for the rarest of collisions (15 bits of
// pattern and a colour). It is a two-colour palette, a few hundred
// bytes.
func Avatar(seed int64, size int) []byte {
	size = min(max(size, MinAvatarSide), MaxAvatarSide)
	var in [8]byte
	binary.BigEndian.PutUint64(in[:], uint64(seed))
	sum := sha256.Sum256(in[:])
	pal := color.Palette{color.RGBA{0xf0, 0xf0, 0xf0, 0xff}, avatarColor(sum)}
	m := image.NewPaletted(image.Rect(0, 0, size, size), pal)
	cell := size / (avatarCells + 1)
	margin := (size - avatarCells*cell) / 2
	bits := binary.BigEndian.Uint32(sum[:4])
	for row := range avatarCells {
		for col := range (avatarCells + 1) / 2 {
			if bits>>(row*3+col)&1 == 0 {
				continue
			}
			fillCell(m, margin, cell, col, row)
			fillCell(m, margin, cell, avatarCells-1-col, row)
		}
	}
	var buf bytes.Buffer
	if err := pngEncoder.Encode(&buf, m); err != nil {
		panic("imaging: encoding an avatar in memory: " + err.Error()) // a paletted picture in a buffer cannot fail
	}
	return buf.Bytes()
}

// fillCell paints the cell at col, row of m's pattern in its second
// colour.
func fillCell(m *image.Paletted, margin, cell, col, row int) {
	x0, y0 := margin+col*cell, margin+row*cell
	for y := y0; y < y0+cell; y++ {
		for x := x0; x < x0+cell; x++ {
			m.Pix[m.PixOffset(x, y)] = 1
		}
	}
}

// avatarColor is the colour of the cells of the avatar of hash sum: a
// hue of the wheel, saturated and mid-light enough to stand out on the
// background.
func avatarColor(sum [32]byte) color.RGBA {
	hue := float64(binary.BigEndian.Uint16(sum[4:])) / 65536 * 360
	sat := 0.45 + float64(sum[6])/255*0.3
	light := 0.42 + float64(sum[7])/255*0.16
	return hsl(hue, sat, light)
}

// hsl converts a colour from hue (degrees), saturation and lightness
// (0 to 1) to RGB.
func hsl(h, s, l float64) color.RGBA {
	c := (1 - math.Abs(2*l-1)) * s
	x := c * (1 - math.Abs(math.Mod(h/60, 2)-1))
	var r, g, b float64
	switch {
	case h < 60:
		r, g = c, x
	case h < 120:
		r, g = x, c
	case h < 180:
		g, b = c, x
	case h < 240:
		g, b = x, c
	case h < 300:
		r, b = x, c
	default:
		r, b = c, x
	}
	m := l - c/2
	to8 := func(v float64) uint8 { return uint8(math.Round((v + m) * 255)) }
	return color.RGBA{to8(r), to8(g), to8(b), 0xff}
}
