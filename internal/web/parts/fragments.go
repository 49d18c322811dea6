package parts

import (
	"bytes"
	"cmp"
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

// editedMarker stands likewise for how long ago an edited post was
// edited, after its relative time.
const editedMarker = "\ue000edited\ue000"

// actionsMarker stands for a post's action bar (see writeActions) while
// its fragment is rendered; it comes last, after the times.
const actionsMarker = "\ue000actions\ue000"

// fragment is a post rendered once: its HTML before the relative time
// ("posted 3 minutes ago"), between it and the action bar (or, for an
// edited post, how long ago it was edited), and after the action bar:
// the parts that change are written fresh.
type fragment struct {
	author, name    string // the author's username and display name it was rendered with
	edited          int64  // the edit it was rendered as (unix ms; 0: none)
	card            bool   // it was rendered with the preview of its link (which comes after the post)
	head, mid, tail string
	editMid         string // between the time of the edit and the action bar
}

// Fragments renders posts and keeps what it rendered: a post changes
// only when edited or when the preview of its link comes, and is kept by
// its id, the time of its last edit and whether it had its preview (a
// deleted one is no longer read), so a timeline page pieces its posts
// together from strings instead of executing their template again; a
// post whose author took another name or display name is rendered anew;
// what does change (the relative times, the action bar) is written
// fresh. It
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
// HTML (see BodyHTML), the words that say how long ago it was made and,
// if it was, edited ("" if it was not), and its action bar (see
// ActionsHTML).
type PostView struct {
	retwis.Post
	BodyHTML       template.HTML
	Ago, EditedAgo string
	Actions        template.HTML
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

// PageHTML returns the HTML of page's posts as HTML does, those it
// veils (retwis.Page.Veiled) each in a <details> that says "Filtered:"
// and the filter's title, open without JavaScript.
func (f *Fragments) PageHTML(page retwis.Page, now time.Time) (template.HTML, error) {
	frs, size, err := f.all(page.Posts)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.Grow(size)
	writeVeiled(&b, frs, page, now)
	return template.HTML(b.String()), nil
}

// WritePage writes the HTML of page's posts to b as PageHTML returns it.
func (f *Fragments) WritePage(b *bytes.Buffer, page retwis.Page, now time.Time) error {
	frs, size, err := f.all(page.Posts)
	if err != nil {
		return err
	}
	b.Grow(size)
	writeVeiled(b, frs, page, now)
	return nil
}

// writeVeiled writes frs, the fragments of page's posts, as write does,
// each post the page veils in a <details> of its own.
func writeVeiled(w io.StringWriter, frs []fragment, page retwis.Page, now time.Time) {
	if len(page.Veiled) == 0 {
		write(w, frs, page.Posts, now)
		return
	}
	for i, p := range page.Posts {
		title, veiled := page.Veiled[p.ID]
		if veiled {
			w.WriteString(`<details class="filtered"><summary>Filtered: ` + Escape(title) + "</summary>\n")
		}
		write(w, frs[i:i+1], page.Posts[i:i+1], now)
		if veiled {
			w.WriteString("</details>\n")
		}
	}
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
		size += len(fr.head) + len(fr.mid) + len(fr.editMid) + len(fr.tail) + 20 + 300 // "posted 11 months ago", the action bar
	}
	return frs, size, nil
}

// write writes frs, the fragments of posts, to w, as of now: a boost
// as the post it boosts, in a block that says first who boosted it, by
// their display name when they set one (not kept: it is short, and its
// fragment is the post's).
func write(w io.StringWriter, frs []fragment, posts []retwis.Post, now time.Time) {
	for i, fr := range frs {
		p := posts[i]
		if p.Reblog != nil {
			w.WriteString(`<div class="boost" id="p` + strconv.FormatInt(p.ID, 10) + `"><p class="boosted">↻ boosted by <a href="`)
			w.WriteString(Escape(retwis.ProfilePath(p.Author)) + `">` + Escape(cmp.Or(p.AuthorDisplayName, p.Author)) + "</a></p>\n")
			p = *p.Reblog
		}
		w.WriteString(fr.head)
		w.WriteString(Escape(words.Since(now.Sub(p.Time))))
		w.WriteString(fr.mid)
		if fr.edited != 0 {
			w.WriteString(Escape(words.Since(now.Sub(p.Edited))))
			w.WriteString(fr.editMid)
		}
		writeActions(w, p)
		w.WriteString(fr.tail)
		if posts[i].Reblog != nil {
			w.WriteString("</div>")
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
	if fr, ok := f.cache.Load(p.ID); ok && fr.author == p.Author && fr.name == p.AuthorDisplayName && fr.edited == editedMs(p) &&
		fr.card == (p.Card != nil) {
		return fr, nil
	}
	v := PostView{Post: p, BodyHTML: BodyHTML(p), Ago: agoMarker, Actions: actionsMarker}
	if !p.Edited.IsZero() {
		v.EditedAgo = editedMarker
	}
	var buf bytes.Buffer
	if err := f.tmpl.ExecuteTemplate(&buf, "post", v); err != nil {
		return fragment{}, fmt.Errorf("parts: render post %d: %w", p.ID, err)
	}
	html := buf.String()
	fr := fragment{author: p.Author, name: p.AuthorDisplayName, edited: editedMs(p), card: p.Card != nil}
	// Split at the last of each marker, from the end: the body, which
	// comes first, may hold their characters too.
	bar := strings.LastIndex(html, actionsMarker)
	if bar < 0 {
		return fragment{}, fmt.Errorf("parts: render post %d: the post template shows no action bar", p.ID)
	}
	html, fr.tail = html[:bar], html[bar+len(actionsMarker):]
	if !p.Edited.IsZero() {
		at := strings.LastIndex(html, editedMarker)
		if at < 0 {
			return fragment{}, fmt.Errorf("parts: render post %d: the post template shows no time of its edit", p.ID)
		}
		html, fr.editMid = html[:at], html[at+len(editedMarker):]
	}
	at := strings.LastIndex(html, agoMarker)
	if at < 0 {
		return fragment{}, fmt.Errorf("parts: render post %d: the post template shows no relative time", p.ID)
	}
	fr.head, fr.mid = html[:at], html[at+len(agoMarker):]
	f.cache.Store(p.ID, fr) // a renamed author's or an edited post keeps its slot
	return fr, nil
}
