package imaging

import "errors"

// errGIFTruncated is the cause of a GIF whose blocks end before its
// trailer.
var errGIFTruncated = errors.New("imaging: the GIF's blocks end before its trailer")

// gifFrames counts the frames of data, a GIF, by walking its blocks
// without decoding any: the header and logical screen descriptor, the
// global colour table, then extensions and image descriptors (each
// followed by sub-blocks) up to the trailer. It stops with an Invalid
// error past maxFrames frames, so that a bomb of millions of tiny frames
// is refused after reading a little of it, and when the blocks do not
// parse.
func gifFrames(data []byte, maxFrames int) (int, error) {
	w := gifWalker{data: data, at: 13} // "GIF89a" and the screen descriptor
	if len(data) < w.at {
		return 0, damaged("gif", errGIFTruncated)
	}
	w.skipColorTable(data[10])
	frames := 0
	for w.err == nil {
		switch w.byte() {
		case 0x21: // an extension
			w.skipExtension()
		case 0x2c: // an image descriptor
			if frames++; frames > maxFrames {
				return frames, invalid(nil, "This animation has more than %d frames, the most accepted.", maxFrames)
			}
			w.skipImage()
		case 0x3b: // the trailer
			if frames == 0 {
				return 0, damaged("gif", errors.New("imaging: a GIF without frames"))
			}
			return frames, nil
		default:
			w.err = errors.New("imaging: a GIF block of an unknown type")
		}
	}
	return 0, damaged("gif", w.err)
}

// gifWalker reads a GIF's blocks, at offset at of data; err is set
// once they do not parse.
type gifWalker struct {
	data []byte
	at   int
	err  error
}

// byte returns the byte at w.at and moves past it (0 with w.err set past
// the end).
func (w *gifWalker) byte() byte {
	if w.at >= len(w.data) {
		if w.err == nil {
			w.err = errGIFTruncated
		}
		return 0
	}
	w.at++
	return w.data[w.at-1]
}

// skip moves past n bytes.
func (w *gifWalker) skip(n int) {
	if w.at += n; w.at > len(w.data) && w.err == nil {
		w.err = errGIFTruncated
	}
}

// skipExtension moves past an extension: its label, then sub-blocks,
// read as image/gif reads them (which matters for a GIF it decodes: the
// frames counted must be those it decodes): the application extension's
// first block is as long as its first byte says, even 0; the plain text
// extension's is 13 bytes whatever its first byte says.
func (w *gifWalker) skipExtension() {
	switch w.byte() {
	case 0x01: // plain text
		w.skip(13)
	case 0xff: // application
		w.skip(int(w.byte()))
	}
	w.skipSubBlocks()
}

// skipColorTable moves past the colour table that a descriptor's
// packed flags announce, if any.
func (w *gifWalker) skipColorTable(flags byte) {
	if flags&0x80 != 0 {
		w.skip(3 << (flags&7 + 1))
	}
}

// skipImage moves past an image: the rest of its descriptor (position,
// size, flags), its local colour table, the LZW code size and the
// sub-blocks of its data.
func (w *gifWalker) skipImage() {
	w.skip(8)
	if w.err != nil {
		return
	}
	w.skipColorTable(w.byte())
	w.skip(1)
	w.skipSubBlocks()
}

// skipSubBlocks moves past a run of sub-blocks, each a length byte and
// that many bytes, up to and past the empty one that ends it.
func (w *gifWalker) skipSubBlocks() {
	for w.err == nil {
		n := int(w.byte())
		if n == 0 {
			return
		}
		w.skip(n)
	}
}
