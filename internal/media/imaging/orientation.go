package imaging

import (
	"encoding/binary"
	"image"
)

// jpegOrientation returns the EXIF orientation of data, a JPEG: 1 to 8
// as the TIFF tag 0x0112 has it (1: upright), 1 when there is none or it
// does not parse. It reads the segments before the first scan, and only
// the first IFD of an APP1 "Exif" segment.
func jpegOrientation(data []byte) int {
	r := jpegReader{data: data, at: 2} // past SOI
	for {
		marker, seg, ok := r.next()
		switch {
		case !ok || marker == 0xda || marker == 0xd9: // no EXIF before a scan or the end
			return 1
		case marker == 0xe1 && len(seg) >= 6 && string(seg[:6]) == "Exif\x00\x00":
			return exifOrientation(seg[6:])
		}
	}
}

// exifOrientation reads the orientation tag of tiff, the TIFF structure
// of an EXIF segment (1 when there is none or it is out of range).
func exifOrientation(tiff []byte) int {
	if len(tiff) < 8 {
		return 1
	}
	var order binary.ByteOrder
	switch string(tiff[:4]) {
	case "II*\x00":
		order = binary.LittleEndian
	case "MM\x00*":
		order = binary.BigEndian
	default:
		return 1
	}
	ifd := int64(order.Uint32(tiff[4:]))
	if ifd+2 > int64(len(tiff)) {
		return 1
	}
	n := int(order.Uint16(tiff[ifd:]))
	for e := int(ifd) + 2; n > 0 && e+12 <= len(tiff); n, e = n-1, e+12 {
		const orientationTag, typeShort = 0x0112, 3
		if order.Uint16(tiff[e:]) != orientationTag {
			continue
		}
		if order.Uint16(tiff[e+2:]) != typeShort || order.Uint32(tiff[e+4:]) != 1 {
			return 1
		}
		if v := int(order.Uint16(tiff[e+8:])); v >= 1 && v <= 8 {
			return v
		}
		return 1
	}
	return 1
}

// orient returns m turned upright from EXIF orientation o (m itself for
// 1): mirrored, turned, or both, its sides swapped for 5 to 8.
func orient(m *image.RGBA, o int) *image.RGBA {
	if o < 2 || o > 8 {
		return m
	}
	w, h := m.Rect.Dx(), m.Rect.Dy()
	dw, dh := w, h
	if o >= 5 {
		dw, dh = h, w
	}
	dst := image.NewRGBA(image.Rect(0, 0, dw, dh))
	for y := range h {
		row := m.Pix[y*m.Stride:]
		for x := range w {
			dx, dy := orientedPoint(o, x, y, w, h)
			copy(dst.Pix[dy*dst.Stride+dx*4:][:4], row[x*4:x*4+4])
		}
	}
	return dst
}

// orientedPoint is where pixel (x, y) of a w×h picture of orientation o
// goes once it is upright.
func orientedPoint(o, x, y, w, h int) (int, int) {
	switch o {
	case 2: // mirrored
		return w - 1 - x, y
	case 3: // upside down
		return w - 1 - x, h - 1 - y
	case 4: // upside down, mirrored
		return x, h - 1 - y
	case 5: // mirrored, turned a quarter anticlockwise
		return y, x
	case 6: // turned a quarter anticlockwise: a quarter clockwise sets it right
		return h - 1 - y, x
	case 7: // mirrored, turned a quarter clockwise
		return h - 1 - y, w - 1 - x
	}
	return y, w - 1 - x // 8: turned a quarter clockwise
}
