// Package parts keeps what html/template rendered, so that a page shown
// often is put together from strings instead of executing its templates
// again: the parts many pages show alike (Cache), each post (Fragments),
// and a whole page's constant text split around the values that change
// from request to request (Shape). The templates stay the one source of
// the markup: every kept string is their output, rendered with markers
// in place of the values a request fills in, escaped as html/template
// escapes them (Escape).
package parts

import (
	"bytes"
	"strconv"
	"strings"
)

// markerPrefix begins every marker of a Shape's hole, markerEnd ends it:
// letters, digits and underscores only, which html/template writes as
// they are in text, in an attribute value and in a URL alike.
const (
	markerPrefix = "_hole"
	markerEnd    = '_'
)

// Marker returns what a template is given in place of value i of a
// Shape while the shape is rendered: as a string, or as template.HTML
// from a function the template calls. It reads "_hole<i>_", which the
// templates' own text must not contain.
func Marker(i int) string {
	return markerPrefix + strconv.Itoa(i) + string(markerEnd)
}

// Shape is a template's output rendered once from data that holds
// markers only (see Marker): every value it shows is a marker, so the
// rest is the template's constant text, kept split around the markers.
// A request writes it with its own values in the holes (Write).
type Shape struct {
	segs  []string // constant text: segs[i] comes before hole i
	holes []int    // hole i takes value holes[i]
}

// Split returns the shape of html, a template's output rendered with
// markers in place of its values.
func Split(html string) Shape {
	var s Shape
	text, from := html, 0
	for {
		at := strings.Index(text[from:], markerPrefix)
		if at < 0 {
			s.segs = append(s.segs, text)
			return s
		}
		at += from
		i, n := readMarker(text[at:])
		if n == 0 { // "_hole" with no number after it: text
			from = at + len(markerPrefix)
			continue
		}
		s.segs = append(s.segs, text[:at])
		s.holes = append(s.holes, i)
		text, from = text[at+n:], 0
	}
}

// readMarker reads the marker at the start of s, returning its number
// and its length (0 if s starts with none).
func readMarker(s string) (i, n int) {
	end := strings.IndexByte(s[len(markerPrefix):], markerEnd)
	if end <= 0 {
		return 0, 0
	}
	i, err := strconv.Atoi(s[len(markerPrefix) : len(markerPrefix)+end])
	if err != nil || i < 0 || Marker(i) != s[:len(markerPrefix)+end+1] {
		return 0, 0
	}
	return i, len(markerPrefix) + end + 1
}

// Write writes the shape to b, calling fill to write the value of hole
// i (a marker's number) in its place: as HTML, escaped (Escape) if it is
// text. It stops at fill's first error.
func (s Shape) Write(b *bytes.Buffer, fill func(hole int) error) error {
	for i, hole := range s.holes {
		b.WriteString(s.segs[i])
		if err := fill(hole); err != nil {
			return err
		}
	}
	b.WriteString(s.segs[len(s.segs)-1])
	return nil
}

// escapes are what html/template writes for each byte it escapes in
// text, in a quoted attribute value and in RCDATA (<title>, <textarea>):
// its htmlReplacementTable, which, unlike template.HTMLEscapeString,
// escapes '+' too.
var escapes = [...]string{
	0:    "\uFFFD",
	'"':  "&#34;",
	'&':  "&amp;",
	'\'': "&#39;",
	'+':  "&#43;",
	'<':  "&lt;",
	'>':  "&gt;",
}

// Escape returns s escaped as html/template escapes a string in text or
// in a quoted attribute value (but for URLs, which it also normalizes:
// see PlainURL). It returns s itself, unallocated, when nothing in it
// needs escaping.
func Escape(s string) string {
	var b strings.Builder
	done := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if int(c) >= len(escapes) || escapes[c] == "" {
			continue
		}
		if done == 0 {
			b.Grow(len(s) + 16)
		}
		b.WriteString(s[done:i])
		b.WriteString(escapes[c])
		done = i + 1
	}
	if done == 0 {
		return s
	}
	b.WriteString(s[done:])
	return b.String()
}

// PlainURL reports whether html/template writes u as it is in a quoted
// URL attribute (href, src): u has no scheme and only bytes that its URL
// normalizer and its escaper both leave alone (letters, digits, -._~/?=
// and a % that starts an escape). A page fills a URL hole only with such
// a URL, and executes its template for any other.
func PlainURL(u string) bool {
	for i := 0; i < len(u); i++ {
		switch c := u[i]; {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', strings.IndexByte("-._~/?=", c) >= 0:
		case c == '%' && i+2 < len(u) && isHex(u[i+1]) && isHex(u[i+2]):
		default:
			return false
		}
	}
	return true
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}
