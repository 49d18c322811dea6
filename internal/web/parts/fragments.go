package parts

import (
	"bytes"
	"fmt"
	"html/template"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/retwis/retwis/internal/bounded"
	"github.com/retwis/retwis/internal/web/words"

	"github.com/retwis/retwis"
)

// agoMarker stands for a post's relative time while its fragment is
// rendered. It may occur in a post's body too, but the time comes after
// the body, so the fragment is split at its last occurrence.
const agoMarker = "\ue000ago\ue000"

// fragment is a post rendered once: its HTML before and after the
// relative time ("posted 3 minutes ago"), the one part that changes.
type fragment struct {
	author     string // the name it was rendered with
	head, tail string
}

// Fragments renders posts and keeps what it rendered: posts never change
// (a deleted one is no longer read), so a timeline page pieces its posts
// together from strings instead of executing their template again. It
// keeps the capacity most recently rendered posts, and is safe for
// concurrent use.
type Fragments struct {
	tmpl  *template.Template // with the "post" template
	cache *bounded.Map[int64, fragment]
}

// NewFragments returns a cache of up to capacity rendered posts, made
// with the "post" template of tmpl, which renders a PostView.
func NewFragments(tmpl *template.Template, capacity int) *Fragments {
	return &Fragments{tmpl: tmpl, cache: bounded.New[int64, fragment](capacity)}
}

// PostView is what the "post" template renders: the post, its body as
// HTML (see BodyHTML) and the words that say how long ago it was made.
type PostView struct {
	retwis.Post
	BodyHTML template.HTML
	Ago      string
}

// HTML returns the HTML of posts, one after the other, as of now.
func (f *Fragments) HTML(posts []retwis.Post, now time.Time) (template.HTML, error) {
	frs, size, err := f.all(posts)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.Grow(size)
	write(&b, frs, posts, now)
	return template.HTML(b.String()), nil
}

// Write writes the HTML of posts to b, one after the other, as of now.
func (f *Fragments) Write(b *bytes.Buffer, posts []retwis.Post, now time.Time) error {
	frs, size, err := f.all(posts)
	if err != nil {
		return err
	}
	b.Grow(size)
	write(b, frs, posts, now)
	return nil
}

// all returns the fragments of posts and about how long their HTML is.
func (f *Fragments) all(posts []retwis.Post) ([]fragment, int, error) {
	frs := make([]fragment, len(posts))
	size := 0
	for i, p := range posts {
		if p.Reblog != nil { // a boost shows the post it boosts
			p = *p.Reblog
			size += 200 // the line above it
		}
		fr, err := f.get(p)
		if err != nil {
			return nil, 0, err
		}
		frs[i] = fr
		size += len(fr.head) + len(fr.tail) + 20 // "posted 11 months ago"
	}
	return frs, size, nil
}

// write writes frs, the fragments of posts, to w, as of now: a boost
// as the post it boosts, in a block that says first who boosted it (not
// kept: it is short, and its fragment is the post's).
func write(w io.StringWriter, frs []fragment, posts []retwis.Post, now time.Time) {
	for i, fr := range frs {
		p := posts[i]
		if p.Reblog != nil {
			w.WriteString(`<div class="boost" id="p` + strconv.FormatInt(p.ID, 10) + `"><p class="boosted">↻ boosted by <a href="`)
			w.WriteString(Escape(retwis.ProfilePath(p.Author)) + `">` + Escape(p.Author) + "</a></p>\n")
			p = *p.Reblog
		}
		w.WriteString(fr.head)
		w.WriteString(Escape(words.Since(now.Sub(p.Time))))
		w.WriteString(fr.tail)
		if posts[i].Reblog != nil {
			w.WriteString("</div>")
		}
	}
}

// get returns the fragment of p, rendering it if need be.
func (f *Fragments) get(p retwis.Post) (fragment, error) {
	if fr, ok := f.cache.Load(p.ID); ok && fr.author == p.Author {
		return fr, nil
	}
	var buf bytes.Buffer
	if err := f.tmpl.ExecuteTemplate(&buf, "post", PostView{Post: p, BodyHTML: BodyHTML(p), Ago: agoMarker}); err != nil {
		return fragment{}, fmt.Errorf("parts: render post %d: %w", p.ID, err)
	}
	html := buf.String()
	at := strings.LastIndex(html, agoMarker)
	if at < 0 {
		return fragment{}, fmt.Errorf("parts: render post %d: the post template shows no relative time", p.ID)
	}
	fr := fragment{author: p.Author, head: html[:at], tail: html[at+len(agoMarker):]}
	f.cache.Store(p.ID, fr) // a renamed author's post keeps its slot
	return fr, nil
}
