package imaging

import (
	"bytes"
	"encoding/binary"
	"errors"
)

// maxJPEGScans bounds the scans of a JPEG, which a progressive one has
// several of (about ten from the usual encoders): the decoder visits
// every block of the picture at each, so that a few bytes a scan can
// make thousands of scans of a large picture take minutes (the EOB runs
// of libjpeg-turbo's report "Two Issues with the JPEG Standard").
const maxJPEGScans = 100

// jpegScans counts the scans of data, a JPEG, walking its segments and
// the entropy-coded data after each scan's header without decoding it;
// it stops with an Invalid error past maxJPEGScans scans.
func jpegScans(data []byte) (int, error) {
	r := jpegReader{data: data, at: 2} // past SOI
	scans := 0
	for {
		marker, _, ok := r.next()
		switch {
		case !ok:
			return 0, damaged("jpeg", errors.New("imaging: the JPEG's segments do not parse"))
		case marker == 0xd9: // the end of the image
			return scans, nil
		case marker == 0xda:
			if scans++; scans > maxJPEGScans {
				return scans, invalid(nil, "This JPEG has more than %d scans; save it again, as a baseline or ordinary progressive JPEG.", maxJPEGScans)
			}
		}
	}
}

// jpegReader reads the segments of a JPEG from offset at of data.
type jpegReader struct {
	data []byte
	at   int
}

// next returns the next marker and its segment's payload (nil for the
// markers that have none), ok false at the end of data or where it does
// not parse; after a scan's header (SOS) it moves past the scan's
// entropy-coded data, up to the marker that follows it. It reads as
// image/jpeg does, bytes between segments and fill bytes skipped, so
// that the scans it counts are those the decoder reads.
func (r *jpegReader) next() (marker byte, seg []byte, ok bool) {
	d := r.data
	if r.at >= len(d) {
		return 0, nil, false
	}
	for marker == 0 { // 0xff 0x00 between segments is skipped as well
		i := bytes.IndexByte(d[r.at:], 0xff)
		if i < 0 {
			return 0, nil, false
		}
		r.at += i + 1
		for r.at < len(d) && d[r.at] == 0xff { // fill bytes
			r.at++
		}
		if r.at == len(d) {
			return 0, nil, false
		}
		marker = d[r.at]
		r.at++
	}
	if marker >= 0xd0 && marker <= 0xd7 || marker == 0xd9 { // RSTn, EOI: no length
		return marker, nil, true
	}
	if r.at+2 > len(d) {
		return 0, nil, false
	}
	end := r.at + int(binary.BigEndian.Uint16(d[r.at:]))
	if end > len(d) || end < r.at+2 {
		return 0, nil, false
	}
	seg, r.at = d[r.at+2:end], end
	if marker == 0xda {
		r.skipEntropyCoded()
	}
	return marker, seg, true
}

// skipEntropyCoded moves to the first marker at or after r.at that is
// neither a stuffed 0xff (0xff 0x00) nor a restart marker, or to the end
// of the data.
func (r *jpegReader) skipEntropyCoded() {
	for {
		i := bytes.IndexByte(r.data[r.at:], 0xff)
		if i < 0 || r.at+i+1 >= len(r.data) {
			r.at = len(r.data)
			return
		}
		r.at += i
		if b := r.data[r.at+1]; b != 0 && (b < 0xd0 || b > 0xd7) {
			return
		}
		r.at += 2
	}
}
