package cards

import (
	"io"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Page is what a page's head says of it, as Parse found it: every text
// trimmed, its whitespace collapsed and bounded, entities decoded.
type Page struct {
	Title, Description string
	Type               string // og:type
	SiteName           string
	Author             string
	// Image is the absolute URL of the page's picture ("" if none or
	// not http(s)), ImageWidth and ImageHeight its size if the page says.
	Image                   string
	ImageWidth, ImageHeight int
	// OEmbed is the absolute URL of the page's oEmbed document in JSON,
	// if it announces one.
	OEmbed string
}

// Bounds of the text of a card, in characters.
const (
	MaxTitle       = 200
	MaxDescription = 500
	maxField       = 500 // the other texts (names)
)

// parseBound is how many bytes of a page Parse reads at most: the head
// of any page that has one worth showing ends well before.
const parseBound = 512 << 10

// meta is what the tags of a head say, before the fallbacks are chosen.
type meta struct {
	props         map[string]string // og:*, twitter:*, description, author: the first of each
	title         string
	oembed        string
	inTitle       bool
	width, height string
}

// Parse reads the head of the HTML document r, found at base, up to
// </head>, <body> or parseBound bytes: the OpenGraph properties, the
// twitter:* ones in their place, else the <title> and the description,
// and the link to an oEmbed document. A malformed page gives what could
// be read of it.
func Parse(r io.Reader, base *url.URL) Page {
	m := meta{props: map[string]string{}}
	z := html.NewTokenizer(io.LimitReader(r, parseBound))
	z.SetMaxBuf(parseBound)
	for m.token(z) {
	}
	first := func(keys ...string) string {
		for _, k := range keys {
			if v := m.props[k]; v != "" {
				return v
			}
		}
		return ""
	}
	p := Page{
		Title:       Clean(first("og:title", "twitter:title"), MaxTitle),
		Description: Clean(first("og:description", "twitter:description", "description"), MaxDescription),
		Type:        Clean(m.props["og:type"], maxField),
		SiteName:    Clean(first("og:site_name", "application-name"), maxField),
		Author:      Clean(m.props["author"], maxField),
		Image:       Resolve(base, first("og:image", "og:image:url", "og:image:secure_url", "twitter:image", "twitter:image:src")),
		OEmbed:      Resolve(base, m.oembed),
	}
	if p.Title == "" {
		p.Title = Clean(m.title, MaxTitle)
	}
	if p.Image != "" {
		p.ImageWidth, p.ImageHeight = size(m.props["og:image:width"]), size(m.props["og:image:height"])
	}
	return p
}

// token reads one token of z into m, and reports whether to go on.
func (m *meta) token(z *html.Tokenizer) bool {
	switch z.Next() {
	case html.ErrorToken:
		return false
	case html.TextToken:
		if m.inTitle && len(m.title) < 4*MaxTitle {
			m.title += string(z.Text())
		}
	case html.EndTagToken:
		name, _ := z.TagName()
		switch atom.Lookup(name) {
		case atom.Head:
			return false
		case atom.Title:
			m.inTitle = false
		}
	case html.StartTagToken, html.SelfClosingTagToken:
		name, hasAttr := z.TagName()
		switch atom.Lookup(name) {
		case atom.Body:
			return false
		case atom.Title:
			m.inTitle = m.title == ""
		case atom.Meta, atom.Link:
			if hasAttr {
				m.tag(atom.Lookup(name), attrs(z))
			}
		}
	}
	return true
}

// attrs returns the attributes of z's current tag, names in lower case.
func attrs(z *html.Tokenizer) map[string]string {
	a := map[string]string{}
	for {
		k, v, more := z.TagAttr()
		if _, dup := a[string(k)]; !dup {
			a[string(k)] = string(v)
		}
		if !more {
			return a
		}
	}
}

// tag records what a <meta> or <link> says.
func (m *meta) tag(t atom.Atom, a map[string]string) {
	if t == atom.Link {
		if m.oembed == "" && hasWord(a["rel"], "alternate") && strings.EqualFold(strings.TrimSpace(a["type"]), "application/json+oembed") {
			m.oembed = a["href"]
		}
		return
	}
	key := strings.ToLower(strings.TrimSpace(a["property"]))
	if key == "" {
		key = strings.ToLower(strings.TrimSpace(a["name"]))
	}
	if _, seen := m.props[key]; key != "" && !seen {
		m.props[key] = a["content"]
	}
}

// hasWord reports whether the space-separated list s holds w, in any
// case.
func hasWord(s, w string) bool {
	for _, f := range strings.Fields(s) {
		if strings.EqualFold(f, w) {
			return true
		}
	}
	return false
}

// size reads a length in pixels ("" or nonsense: 0).
func size(s string) int {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || n < 0 || n > 1<<16 {
		return 0
	}
	return n
}

// Clean makes s a card's text: valid UTF-8, its whitespace (and control
// characters) collapsed to single spaces, trimmed, and cut to at most
// max characters, ending with "…" if cut.
func Clean(s string, max int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.Join(strings.FieldsFunc(s, func(r rune) bool { return r < ' ' || r == 0x7f || isSpace(r) }), " ")
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	r := []rune(s)[:max-1]
	return strings.TrimRight(string(r), " ") + "…"
}

// isSpace reports whether r is white space of any kind.
func isSpace(r rune) bool {
	switch r {
	case ' ', '\u0085', '\u00a0', '\u1680', '\u2028', '\u2029', '\u202f', '\u205f', '\u3000', '\ufeff':
		return true
	}
	return '\u2000' <= r && r <= '\u200a'
}

// Resolve returns ref as an absolute http(s) URL, relative to base, or
// "" if it is none (empty, malformed, another scheme, with a user).
func Resolve(base *url.URL, ref string) string {
	ref = strings.TrimSpace(ref)
	if ref == "" {
		return ""
	}
	u, err := url.Parse(ref)
	if err != nil {
		return ""
	}
	if base != nil {
		u = base.ResolveReference(u)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
		return ""
	}
	return u.String()
}
