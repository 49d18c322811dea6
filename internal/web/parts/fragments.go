package parts

import (
	"bytes"
	"fmt"
	"html/template"
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
	frs := make([]fragment, len(posts))
	size := 0
	for i, p := range posts {
		fr, err := f.get(p)
		if err != nil {
			return "", err
		}
		frs[i] = fr
		size += len(fr.head) + len(fr.tail) + 20 // "posted 11 months ago"
	}
	var b strings.Builder
	b.Grow(size)
	for i, fr := range frs {
		b.WriteString(fr.head)
		b.WriteString(Escape(words.Since(now.Sub(posts[i].Time))))
		b.WriteString(fr.tail)
	}
	return template.HTML(b.String()), nil
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
