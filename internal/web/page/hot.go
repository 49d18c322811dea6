package page

import (
	"bytes"
	"fmt"
	"html/template"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/web/parts"
)

// The values that fill the holes of a hot page's shape (parts.Marker):
// the title, the navigation bar, the page's first card(s), the home
// page's suggestions, the posts, the links to newer and older posts.
const (
	holeTitle = iota
	holeNav
	holeCard
	holeSuggestions
	holePosts
	holeNewer
	holeOlder
	holeCount
)

// The bits of a hot page's shape: what it shows or not, which renders
// its template differently (a list of suggestions, posts or "No posts
// yet.", a link to newer posts or the live stream's paragraph, a link to
// older ones). shapeCount is how many shapes a page has.
const (
	withSuggestions = 1 << iota
	withPosts
	withNewer
	withOlder
	shapeCount
)

// hotPage is a page that requests ask for most: its shapes, rendered
// once each with markers in place of its values (parseShapes), are
// filled in with kept parts (compose).
type hotPage struct {
	card func(*keptParts, *View) (template.HTML, error) // its first card(s)
	page func(*View) *retwis.Page                       // its posts
}

// hotPages are the pages composed from kept parts, by name.
var hotPages = map[string]hotPage{
	"home":     {card: (*keptParts).homeCard, page: func(v *View) *retwis.Page { return &v.Page }},
	"profile":  {card: (*keptParts).profileCard, page: func(v *View) *retwis.Page { return &v.Profile.Page }},
	"timeline": {card: (*keptParts).timelineCards, page: func(v *View) *retwis.Page { return &v.Page }},
}

// parseShapes renders every shape of each hot page: its template, parsed
// anew with funcs but for the functions of kept parts and posts, which
// return markers, executed on a view of markers (markerView).
func parseShapes(funcs template.FuncMap) (map[string]*[shapeCount]parts.Shape, error) {
	marked := maps.Clone(funcs)
	mark := func(hole int) func(any) template.HTML {
		return func(any) template.HTML { return template.HTML(parts.Marker(hole)) }
	}
	marked["nav"], marked["suggestionsHTML"], marked["postsHTML"], marked["pageHTML"] = mark(holeNav), mark(holeSuggestions), mark(holePosts), mark(holePosts)
	marked["homeCard"], marked["profileCard"], marked["timelineCards"] = mark(holeCard), mark(holeCard), mark(holeCard)
	_, pages, err := parsePages(marked, slices.Collect(maps.Keys(hotPages)))
	if err != nil {
		return nil, err
	}
	shapes := make(map[string]*[shapeCount]parts.Shape, len(hotPages))
	for name, hp := range hotPages {
		shapes[name] = new([shapeCount]parts.Shape)
		for bits := range shapeCount {
			var b strings.Builder
			v := hp.markerView(bits)
			if err := pages[name].ExecuteTemplate(&b, "layout", &v); err != nil {
				return nil, fmt.Errorf("web: shape %d of %s: %w", bits, name, err)
			}
			shapes[name][bits] = parts.Split(b.String())
		}
	}
	return shapes, nil
}

// markerView returns the view of the shape bits of the page: markers in
// place of its strings, one zero element in each list it shows.
func (hp hotPage) markerView(bits int) View {
	v := View{Title: parts.Marker(holeTitle)}
	if bits&withSuggestions != 0 {
		v.Suggestions = make([]retwis.Suggestion, 1)
	}
	if bits&withPosts != 0 {
		hp.page(&v).Posts = make([]retwis.Post, 1)
	}
	if bits&withNewer != 0 {
		v.Newer = parts.Marker(holeNewer)
	}
	if bits&withOlder != 0 {
		v.Older = parts.Marker(holeOlder)
	}
	return v
}

// shape returns the bits of v's shape, or false if v shows what no
// shape does: posts that could not be loaded (how many, in words), a
// link that html/template would escape (see parts.PlainURL), pins,
// announcements.
func (hp hotPage) shape(v *View) (int, bool) {
	p := hp.page(v)
	if p.Missing != 0 || !parts.PlainURL(v.Newer) || !parts.PlainURL(v.Older) || len(v.Profile.Pinned) > 0 || len(v.Announcements) > 0 {
		return 0, false
	}
	bits := 0
	if len(v.Suggestions) > 0 {
		bits |= withSuggestions
	}
	if len(p.Posts) > 0 {
		bits |= withPosts
	}
	if v.Newer != "" {
		bits |= withNewer
	}
	if v.Older != "" {
		bits |= withOlder
	}
	return bits, true
}

// execute writes page name of v to buf: a hot page composed (compose),
// any other, or a hot page in no shape, by executing its template.
func (ps *pageSet) execute(buf *bytes.Buffer, name string, v *View) error {
	if ok, err := ps.compose(buf, name, v); ok || err != nil {
		return err
	}
	return ps.templates[name].ExecuteTemplate(buf, "layout", v)
}

// compose writes hot page name of v to buf from its shape and kept
// parts, executing no template but those of parts not kept yet; it
// returns false, having written nothing, if the page is not hot or v is
// in no shape, and its error, having written part of the page, if a
// part fails to render.
func (ps *pageSet) compose(buf *bytes.Buffer, name string, v *View) (bool, error) {
	hp, ok := hotPages[name]
	if !ok {
		return false, nil
	}
	bits, ok := hp.shape(v)
	if !ok {
		return false, nil
	}
	shape := &ps.shapes[name][bits]
	return true, shape.Write(buf, func(hole int) error { return ps.fill(buf, hp, v, hole) })
}

// fill writes what fills hole of hot page hp of v to buf, as HTML.
func (ps *pageSet) fill(buf *bytes.Buffer, hp hotPage, v *View, hole int) error {
	var html template.HTML
	var err error
	switch hole {
	case holeTitle:
		buf.WriteString(parts.Escape(v.Title))
	case holeNav:
		html, err = ps.kept.nav(v)
	case holeCard:
		html, err = hp.card(ps.kept, v)
	case holeSuggestions:
		html, err = ps.kept.suggestions(v.Suggestions)
	case holePosts:
		err = ps.frags.WritePage(buf, *hp.page(v), time.Now())
	case holeNewer:
		buf.WriteString(v.Newer) // a plain URL: see shape
	case holeOlder:
		buf.WriteString(v.Older)
	default:
		err = fmt.Errorf("web: no value for hole %d", hole)
	}
	buf.WriteString(string(html))
	return err
}
