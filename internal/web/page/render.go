package page

import (
	"bytes"
	"embed"
	"fmt"
	"html/template"
	"net/http"
	"strconv"
	"time"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/middleware"
	"github.com/retwis/retwis/internal/store"
	"github.com/retwis/retwis/internal/web/filterform"
	"github.com/retwis/retwis/internal/web/parts"
	"github.com/retwis/retwis/internal/web/words"
)

//go:embed templates/*.html
var templateFiles embed.FS

// pageNames are the templates that render a whole page; each is parsed
// together with the layout and the shared partials.
var pageNames = []string{"welcome", "home", "profile", "timeline", "post", "tag", "mentions", "direct", "marked", "notifications", "tags", "follows", "settings", "search", "explore", "authorize", "apps", "sessions", "blocks", "admin", "error", "deleted", "edit", "followed_tags", "lists", "list", "filters", "scheduled"}

// fragmentCapacity is how many rendered posts a server keeps,
// partCapacity how many other parts of pages (see parts.Cache).
const (
	fragmentCapacity = 50_000
	partCapacity     = 10_000
)

// pageSet is the pages' templates, the caches of what they rendered
// (posts and parts many pages show alike), and the shapes of the pages
// shown most, which a request fills in without executing a template
// (see compose).
type pageSet struct {
	templates map[string]*template.Template
	kept      *keptParts
	frags     *parts.Fragments
	shapes    map[string]*[shapeCount]parts.Shape
}

// parseTemplates parses the pages. They render posts through a cache of
// fragments (see parts.Fragments), made with their "post" template, and
// the parts many pages show alike through a cache of parts (keptParts).
// Their compose boxes say how long a post may be, maxPostChars as
// retwis.StatusLength counts, which static/counter.js counts down to; a
// box has no maxlength, which counts otherwise (UTF-16 units, a link's
// every one) and would refuse posts the server takes: the server's own
// check tells of a post too long.
func parseTemplates(maxPostChars int) (*pageSet, error) {
	ps := &pageSet{kept: &keptParts{}}
	posts := func(p ...retwis.Post) []retwis.Post { return p }
	funcs := template.FuncMap{
		"postsHTML": func(posts []retwis.Post) (template.HTML, error) { return ps.frags.HTML(posts, time.Now()) },
		"pageHTML":  func(page retwis.Page) (template.HTML, error) { return ps.frags.PageHTML(page, time.Now()) },
		"posts":     posts, "plural": words.Plural, "profile": retwis.ProfilePath,
		"tagPath": retwis.TagPath, "postPath": retwis.PostPath, "ago": func(t time.Time) string { return words.Since(time.Since(t)) },
		"scopeText": scopeText, "maxPostChars": func() int { return maxPostChars },
		"urlChars": func() int { return retwis.URLLength }, "visibilities": retwis.Visibilities,
		"nav": ps.kept.nav, "homeCard": ps.kept.homeCard, "suggestionsHTML": ps.kept.suggestions,
		"profileCard": ps.kept.profileCard, "timelineCards": ps.kept.timelineCards, "filterForm": filterform.NewFields,
		"announcementHTML": announcementHTML, "avatarPath": retwis.AvatarPath, "maxAttachments": attachmentRows,
		"maxDescription": func() int { return retwis.MaxDescriptionChars },
	}
	base, pages, err := parsePages(funcs, pageNames)
	if err != nil {
		return nil, err
	}
	ps.templates, ps.frags, ps.kept.Cache = pages, parts.NewFragments(base, fragmentCapacity), parts.NewCache(base, partCapacity)
	if ps.shapes, err = parseShapes(funcs); err != nil {
		return nil, err
	}
	return ps, nil
}

// parsePages parses the pages names, each together with the layout and
// the shared partials (base), calling funcs.
func parsePages(funcs template.FuncMap, names []string) (base *template.Template, pages map[string]*template.Template, err error) {
	base, err = template.New("").Funcs(funcs).
		ParseFS(templateFiles, "templates/layout.html", "templates/partials.html")
	if err != nil {
		return nil, nil, fmt.Errorf("web: templates: %w", err)
	}
	pages = make(map[string]*template.Template, len(names))
	for _, name := range names {
		t, err := template.Must(base.Clone()).ParseFS(templateFiles, "templates/"+name+".html")
		if err != nil {
			return nil, nil, fmt.Errorf("web: template %s: %w", name, err)
		}
		pages[name] = t
	}
	return base, pages, nil
}

// contentSecurityPolicy is the policy of every page: its scripts,
// styles and images from the site alone, forms sent to it alone, no
// <base> (which would move every relative URL elsewhere), and no frame.
const contentSecurityPolicy = "default-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// The values of the headers of a page, built once: each answer's header
// map takes these slices as they are (set, never appended to), which
// spares the canonicalisation and the allocation of http.Header.Set.
var (
	htmlType       = []string{"text/html; charset=utf-8"}
	pageCSP        = []string{contentSecurityPolicy}
	privateNoStore = []string{"private, no-store"}
	noStore        = []string{"no-store"}
)

// Render executes a page into a buffer first, so a template error never
// leaves a half-written page behind a 200. For a logged-in viewer, the
// navigation shows how many notifications are unread (from the
// client-side cache: no round trip when warm), read here unless the page
// read it with the rest (StoreQuery). The posts show their authors'
// display names, read here for all of them at once (store.NameAuthors).
func (k *Kit) Render(w http.ResponseWriter, r *http.Request, status int, name string, v View) {
	if v.Viewer != nil && status < 400 && !v.Counted {
		n, err := k.Store.UnreadNotifications(r.Context(), v.Viewer.ID)
		if err != nil {
			k.Log.Warn("unread notifications", "user", v.Viewer.ID, "err", err) // the page goes on without the count
		}
		v.Unread = n
	}
	k.applyFilters(r.Context(), name, &v)
	one := []retwis.Post{v.Post} // the permalink page's post; elsewhere none, of no author
	if err := k.Store.NameAuthors(r.Context(), v.Page.Posts, v.Profile.Page.Posts, v.Thread.Ancestors, one, v.Thread.Replies.Posts); err != nil {
		k.Log.Warn("display names", "err", err) // the posts show their usernames alone
	}
	v.Post = one[0]
	buf, _ := k.buffers.Get().(*bytes.Buffer)
	if buf == nil {
		buf = new(bytes.Buffer)
	}
	buf.Reset()
	defer k.buffers.Put(buf)
	if err := k.pages.execute(buf, name, &v); err != nil {
		k.Log.Error("render", "template", name, "err", err)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h["Content-Type"] = htmlType
	h["Content-Security-Policy"] = pageCSP
	// The length spares the page the chunked encoding, and its answer the
	// write of the last, empty chunk.
	h["Content-Length"] = []string{strconv.Itoa(buf.Len())}
	switch {
	case v.Viewer != nil: // a page made for its viewer: no cache but theirs, and not even that
		h["Cache-Control"] = privateNoStore
	case status >= 400:
		h["Cache-Control"] = noStore
	}
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}

// StoreQuery is the store's query of a hot page at cursor c of n posts,
// answered with status: the unread count with it when Render would show
// it (a logged-in viewer, a page that is no error).
func StoreQuery(r *http.Request, c retwis.Cursor, n, status int) store.PageQuery {
	_, viewer := middleware.ViewerFrom(r.Context())
	return store.PageQuery{Cursor: c, N: n, Unread: viewer && status < 400}
}

// RenderError shows the error page.
func (k *Kit) RenderError(w http.ResponseWriter, r *http.Request, status int, msg string) {
	v := View{Title: http.StatusText(status), Error: msg}
	if u, ok := middleware.ViewerFrom(r.Context()); ok {
		v.Viewer = &u
	}
	k.Render(w, r, status, "error", v)
}
