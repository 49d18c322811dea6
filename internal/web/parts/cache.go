package parts

import (
	"bytes"
	"fmt"
	"html/template"
	"strings"

	"github.com/retwis/retwis/internal/bounded"
)

// HoleMarker stands for the one value of a kept part that changes on
// every render (the compose form's idempotency key) while the part is
// rendered: the part is kept split around it.
const HoleMarker = "\ue000hole\ue000"

// Cache renders the pieces of pages that many requests show alike (a
// viewer's navigation bar, the compose form, a suggestion to follow)
// through their templates, once, and keeps them: executing a template
// costs a reflective call per action (tens of microseconds a page), a
// kept part a map lookup. The templates of parts take everything they
// show from their data, so that what they render is a function of the
// key it is kept under. It keeps the capacity most recently rendered
// parts, and is safe for concurrent use.
type Cache struct {
	tmpl  *template.Template // with the parts' templates
	cache *bounded.Map[partKey, part]
}

// partKey is what a part is kept under: its template's name and its key.
type partKey struct{ name, key string }

// part is a kept part: its HTML, or its HTML before and after its hole.
type part struct {
	head, tail string
	hole       bool
}

// NewCache returns a cache of up to capacity parts rendered with the
// templates of tmpl.
func NewCache(tmpl *template.Template, capacity int) *Cache {
	return &Cache{tmpl: tmpl, cache: bounded.New[partKey, part](capacity)}
}

// Len returns how many parts the cache keeps.
func (c *Cache) Len() int { return c.cache.Len() }

// HTML returns the template name executed on the data that data
// returns (called only if the part is not kept), kept under key: key
// must tell apart every data that renders differently ("": render it
// every time, keep nothing). If the part has a hole (data carries
// HoleMarker at its place), fill is put there, escaped (Escape); the
// hole must be in text or a quoted attribute value, where that escaping
// is html/template's.
func (c *Cache) HTML(name, key string, data func() any, fill string) (template.HTML, error) {
	var pt part
	ok := false
	if key != "" {
		pt, ok = c.cache.Load(partKey{name, key})
	}
	if !ok {
		html, err := c.render(name, data())
		if err != nil {
			return "", err
		}
		pt = part{head: html}
		if at := strings.LastIndex(html, HoleMarker); at >= 0 {
			pt = part{head: html[:at], tail: html[at+len(HoleMarker):], hole: true}
		}
		if key != "" {
			c.cache.Store(partKey{name, key}, pt)
		}
	}
	if !pt.hole {
		return template.HTML(pt.head), nil
	}
	return template.HTML(pt.head + Escape(fill) + pt.tail), nil
}

// Keyed returns the template name executed on data, kept under data
// itself, spelled out (Key): data should hold nothing the part does not
// show, which would only keep copies apart. A part whose data Key
// cannot spell out (a pointer in it) is rendered every time.
func (c *Cache) Keyed(name string, data any) (template.HTML, error) {
	key, ok := Key(data)
	if !ok {
		key = ""
	}
	return c.HTML(name, key, func() any { return data }, "")
}

func (c *Cache) render(name string, data any) (string, error) {
	var buf bytes.Buffer
	if err := c.tmpl.ExecuteTemplate(&buf, name, data); err != nil {
		return "", fmt.Errorf("parts: render %s: %w", name, err)
	}
	return buf.String(), nil
}
