package parts

import (
	"bytes"
	"fmt"
	"html/template"
	"io"
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

// actionsMarker stands for a post's action bar (see writeActions) while
// its fragment is rendered; it comes after the relative time, so it is
// looked for after agoMarker's place.
const actionsMarker = "\ue000actions\ue000"

// fragment is a post rendered once: its HTML before the relative time
// ("posted 3 minutes ago"), between it and the action bar, and after
// it: the parts that change are written fresh.
type fragment struct {
	author          string // the name it was rendered with
	head, mid, tail string
}

// Fragments renders posts and keeps what it rendered: posts never change
// (a deleted one is no longer read), so a timeline page pieces its posts
// together from strings instead of executing their template again; what
// does change (the relative time, the action bar) is written fresh. It
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
// HTML (see BodyHTML), the words that say how long ago it was made and
// its action bar (see ActionsHTML).
type PostView struct {
	retwis.Post
	BodyHTML template.HTML
	Ago      string
	Actions  template.HTML
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
		fr, err := f.get(p)
		if err != nil {
			return nil, 0, err
		}
		frs[i] = fr
		size += len(fr.head) + len(fr.mid) + len(fr.tail) + 20 + 300 // "posted 11 months ago", the action bar
	}
	return frs, size, nil
}

// write writes frs, the fragments of posts, to w, as of now.
func write(w io.StringWriter, frs []fragment, posts []retwis.Post, now time.Time) {
	for i, fr := range frs {
		w.WriteString(fr.head)
		w.WriteString(Escape(words.Since(now.Sub(posts[i].Time))))
		w.WriteString(fr.mid)
		writeActions(w, posts[i])
		w.WriteString(fr.tail)
	}
}

// get returns the fragment of p, rendering it if need be.
func (f *Fragments) get(p retwis.Post) (fragment, error) {
	if fr, ok := f.cache.Load(p.ID); ok && fr.author == p.Author {
		return fr, nil
	}
	var buf bytes.Buffer
	if err := f.tmpl.ExecuteTemplate(&buf, "post", PostView{Post: p, BodyHTML: BodyHTML(p), Ago: agoMarker, Actions: actionsMarker}); err != nil {
		return fragment{}, fmt.Errorf("parts: render post %d: %w", p.ID, err)
	}
	html := buf.String()
	at := strings.LastIndex(html, agoMarker)
	if at < 0 {
		return fragment{}, fmt.Errorf("parts: render post %d: the post template shows no relative time", p.ID)
	}
	rest := html[at+len(agoMarker):]
	bar := strings.Index(rest, actionsMarker)
	if bar < 0 {
		return fragment{}, fmt.Errorf("parts: render post %d: the post template shows no action bar after the time", p.ID)
	}
	fr := fragment{author: p.Author, head: html[:at], mid: rest[:bar], tail: rest[bar+len(actionsMarker):]}
	f.cache.Store(p.ID, fr) // a renamed author's post keeps its slot
	return fr, nil
}
