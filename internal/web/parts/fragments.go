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

// editedMarker stands likewise for how long ago an edited post was
// edited, after its relative time.
const editedMarker = "\ue000edited\ue000"

// fragment is a post rendered once: its HTML before and after the
// relative time ("posted 3 minutes ago"), the one part that changes,
// and for an edited post the HTML after how long ago it was edited.
type fragment struct {
	author, name string // the author's username and display name it was rendered with
	edited       int64  // the edit it was rendered as (unix ms; 0: none)
	head, tail   string
	editTail     string // after the time of the edit, which tail is before
}

// Fragments renders posts and keeps what it rendered: a post changes
// only when edited, and is kept by its id and the time of its last edit
// (a deleted one is no longer read), so a timeline page pieces its posts
// together from strings instead of executing their template again; a
// post whose author took another name or display name is rendered anew. It
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
// HTML (see BodyHTML) and the words that say how long ago it was made
// and, if it was, edited ("" if it was not).
type PostView struct {
	retwis.Post
	BodyHTML       template.HTML
	Ago, EditedAgo string
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
		size += len(fr.head) + len(fr.tail) + 20 // "posted 11 months ago"
	}
	return frs, size, nil
}

// write writes frs, the fragments of posts, to w, as of now.
func write(w io.StringWriter, frs []fragment, posts []retwis.Post, now time.Time) {
	for i, fr := range frs {
		w.WriteString(fr.head)
		w.WriteString(Escape(words.Since(now.Sub(posts[i].Time))))
		w.WriteString(fr.tail)
		if fr.edited != 0 {
			w.WriteString(Escape(words.Since(now.Sub(posts[i].Edited))))
			w.WriteString(fr.editTail)
		}
	}
}

// editedMs is when p was last edited, unix ms (0: never).
func editedMs(p retwis.Post) int64 {
	if p.Edited.IsZero() {
		return 0
	}
	return p.Edited.UnixMilli()
}

// get returns the fragment of p, rendering it if need be.
func (f *Fragments) get(p retwis.Post) (fragment, error) {
	if fr, ok := f.cache.Load(p.ID); ok && fr.author == p.Author && fr.name == p.AuthorDisplayName && fr.edited == editedMs(p) {
		return fr, nil
	}
	v := PostView{Post: p, BodyHTML: BodyHTML(p), Ago: agoMarker}
	if !p.Edited.IsZero() {
		v.EditedAgo = editedMarker
	}
	var buf bytes.Buffer
	if err := f.tmpl.ExecuteTemplate(&buf, "post", v); err != nil {
		return fragment{}, fmt.Errorf("parts: render post %d: %w", p.ID, err)
	}
	html := buf.String()
	fr := fragment{author: p.Author, name: p.AuthorDisplayName, edited: editedMs(p)}
	if !p.Edited.IsZero() {
		at := strings.LastIndex(html, editedMarker)
		if at < 0 {
			return fragment{}, fmt.Errorf("parts: render post %d: the post template shows no time of its edit", p.ID)
		}
		html, fr.editTail = html[:at], html[at+len(editedMarker):]
	}
	at := strings.LastIndex(html, agoMarker)
	if at < 0 {
		return fragment{}, fmt.Errorf("parts: render post %d: the post template shows no relative time", p.ID)
	}
	fr.head, fr.tail = html[:at], html[at+len(agoMarker):]
	f.cache.Store(p.ID, fr) // a renamed author's or an edited post keeps its slot
	return fr, nil
}
