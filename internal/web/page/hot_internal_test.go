package page

import (
	"bytes"
	"fmt"
	"html/template"
	"strings"
	"testing"
	"text/template/parse"
	"time"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/testkit/must"
)

// hostile is a name with every byte html/template escapes, a quote to
// end an attribute among them.
const hostile = `a"b'c<d>e&f+g`

// TestComposedPages renders each hot page in each of its shapes, with
// plain and hostile values, both ways: its template executed, and
// composed from its shape and kept parts, twice (the parts rendered,
// then kept). The bytes are the same, and a page is composed but for
// posts that could not be loaded and links html/template would escape.
func TestComposedPages(t *testing.T) {
	t.Parallel()
	ps := must.Value(parseTemplates(retwis.DefaultMaxStatusLen))(t)
	for _, tc := range hotCases() {
		for bits := range shapeCount {
			if bits&withSuggestions != 0 && tc.page != "home" {
				continue
			}
			v := tc.v
			withShape(&v, hotPages[tc.page].page(&v), tc.base, bits)
			name := fmt.Sprintf("%s %s, shape %04b", tc.page, tc.name, bits)
			composed := !tc.fallback && !(tc.oddLinks && bits&(withNewer|withOlder) != 0)
			var want bytes.Buffer
			vv := v
			must.OK(t, ps.templates[tc.page].ExecuteTemplate(&want, "layout", &vv))
			for round := range 2 {
				var got bytes.Buffer
				vv := v
				ok := must.Value(ps.compose(&got, tc.page, &vv))(t)
				if ok != composed {
					t.Errorf("%s, round %d: composed %v; want %v", name, round, ok, composed)
				}
				if !ok {
					if got.Len() != 0 {
						t.Errorf("%s: not composed, but wrote %q", name, got.String())
					}
					continue
				}
				if !bytes.Equal(got.Bytes(), want.Bytes()) {
					t.Errorf("%s, round %d: composed\n%s\nthe template\n%s", name, round, got.String(), want.String())
				}
			}
		}
	}
}

// hotCase is a state of a hot page, in which it is rendered in each of
// its shapes (withShape): its view and its paging links' base.
type hotCase struct {
	page, name string
	v          View
	base       string
	fallback   bool // it is in no shape: the template is executed
	oddLinks   bool // its links are escaped: in no shape with a link
}

// hotCases are the states of the hot pages TestComposedPages renders.
func hotCases() []hotCase {
	plain := retwis.User{ID: 1, Username: "reader"}
	odd := retwis.User{ID: 2, Username: hostile}
	home := func(u retwis.User) View {
		return View{Title: "Home", Viewer: &u, PostKey: "KEY" + hostile, Unread: 3, Counted: true,
			Profile: retwis.Profile{User: u, Counts: retwis.Counts{Followers: 12, Following: 1}}}
	}
	draft, failures, missing := home(plain), home(odd), home(plain)
	draft.Draft, draft.Error = "</textarea>"+hostile, "too long: "+hostile
	failures.LoginFailures = LoginFailures{N: 2, Last: time.Now().Add(-time.Hour)}
	missing.Page.Missing = 2
	profile := func(viewer *retwis.User, u retwis.User) View {
		v := View{Title: u.Username, Viewer: viewer, Profile: retwis.Profile{User: u, DisplayName: "Ann " + hostile, Bio: hostile}}
		if viewer != nil {
			v.Relationship = retwis.Relationship{FollowsYou: true, FollowedBy: []retwis.User{odd}, FollowedByCount: 1}
		}
		return v
	}
	reported := profile(&plain, odd)
	reported.Reported = true
	timeline := func(viewer *retwis.User) View {
		return View{Title: "Timeline", Viewer: viewer, Users: []string{"ann", hostile}, Trends: []retwis.Trend{{Tag: "go"}, {Tag: hostile}}}
	}
	return []hotCase{
		{page: "home", name: "plain", v: home(plain), base: "/"},
		{page: "home", name: "a hostile name", v: home(odd), base: "/"},
		{page: "home", name: "a draft and an error", v: draft, base: "/"},
		{page: "home", name: "failed logins", v: failures, base: "/"},
		{page: "home", name: "posts missing", v: missing, base: "/", fallback: true},
		{page: "profile", name: "logged out", v: profile(nil, plain), base: retwis.ProfilePath(plain.Username)},
		{page: "profile", name: "a hostile name", v: profile(&plain, odd), base: retwis.ProfilePath(odd.Username), oddLinks: true}, // & and + in its links
		{page: "profile", name: "one's own", v: profile(&plain, plain), base: retwis.ProfilePath(plain.Username)},
		{page: "profile", name: "just reported", v: reported, base: "/u/x%22y"},
		{page: "timeline", name: "logged out", v: timeline(nil), base: "/timeline"},
		{page: "timeline", name: "logged in", v: timeline(&odd), base: "/timeline"},
	}
}

// withShape gives v, whose posts are p, what the shape bits show: a
// suggestion with a hostile name, posts (one with markup in its body),
// and links to newer and older posts at base.
func withShape(v *View, p *retwis.Page, base string, bits int) {
	if bits&withSuggestions != 0 {
		v.Suggestions = []retwis.Suggestion{{User: retwis.User{ID: 3, Username: "someone"}, FollowedBy: 2}, {User: retwis.User{ID: 4, Username: hostile}, FollowedBy: 1}}
	}
	if bits&withPosts != 0 {
		then := time.Now().Add(-time.Hour)
		p.Posts = []retwis.Post{{ID: 10, AuthorID: 2, Author: hostile, Time: then, Body: "<b>" + hostile + " #tag @reader"}, {ID: 9, AuthorID: 1, Author: "reader", Time: then, Body: "plain"}}
	}
	if bits&withNewer != 0 {
		v.Newer = base + "?after=10"
	}
	if bits&withOlder != 0 {
		v.Older = base + "?before=9"
	}
}

// shapedNames are what the hot pages' templates may use: the fields and
// functions their shapes account for (markerView puts a marker or a
// list in each field, parseShapes a marker-returning function in place
// of each function's), the builtins that only test them, and Pinned and
// Announcements, which hotPage.shape leaves to the template (a profile
// with pins, a home page with announcements are in no shape).
var shapedNames = map[string]bool{
	"Title": true, "Suggestions": true, "Newer": true, "Older": true, "Page": true, "Profile": true, "Posts": true, "Missing": true,
	"Pinned": true, "Announcements": true, "announcementHTML": true,
	"nav": true, "homeCard": true, "profileCard": true, "timelineCards": true, "suggestionsHTML": true, "postsHTML": true,
	"pageHTML": true, "not": true, "or": true,
}

// TestHotTemplatesShaped walks the templates of the hot pages (the
// layout, the content and the templates they call) and checks that they
// use nothing their shapes do not account for: a field used anew would
// render alike in every shape, and TestComposedPages would see it only
// if its cases gave it a value.
func TestHotTemplatesShaped(t *testing.T) {
	t.Parallel()
	ps := must.Value(parseTemplates(retwis.DefaultMaxStatusLen))(t)
	for name := range hotPages {
		w := shapedWalk{t: t, page: name, tmpl: ps.templates[name], seen: map[string]bool{}}
		w.walk(w.tmpl.Lookup("layout").Tree.Root)
		if !w.seen["content"] {
			t.Errorf("%s: the layout calls no content", name)
		}
	}
}

// shapedWalk walks the templates of a hot page (see
// TestHotTemplatesShaped), each called template once.
type shapedWalk struct {
	t    *testing.T
	page string
	tmpl *template.Template
	seen map[string]bool
}

func (w *shapedWalk) walk(n parse.Node) {
	switch n := n.(type) {
	case *parse.ListNode:
		w.list(n)
	case *parse.IfNode:
		w.branch(&n.BranchNode)
	case *parse.WithNode:
		w.branch(&n.BranchNode)
	case *parse.RangeNode:
		w.branch(&n.BranchNode)
	case *parse.ActionNode:
		w.walk(n.Pipe)
	case *parse.PipeNode:
		if n == nil { // {{template "name"}}
			return
		}
		for _, c := range n.Cmds {
			for _, a := range c.Args {
				w.walk(a)
			}
		}
	case *parse.FieldNode:
		for _, f := range n.Ident {
			w.check(f, "use ."+f)
		}
	case *parse.IdentifierNode:
		if !strings.HasPrefix(n.Ident, "_html_template_") {
			w.check(n.Ident, "call "+n.Ident)
		}
	case *parse.TemplateNode:
		w.walk(n.Pipe)
		if !w.seen[n.Name] {
			w.seen[n.Name] = true
			w.walk(w.tmpl.Lookup(n.Name).Tree.Root)
		}
	case *parse.TextNode, *parse.DotNode, *parse.StringNode, *parse.NumberNode, *parse.BoolNode, *parse.NilNode, *parse.CommentNode:
	default:
		w.t.Errorf("%s: its templates hold a %T, which this test does not read", w.page, n)
	}
}

func (w *shapedWalk) list(l *parse.ListNode) {
	if l == nil {
		return
	}
	for _, n := range l.Nodes {
		w.walk(n)
	}
}

func (w *shapedWalk) branch(b *parse.BranchNode) {
	w.walk(b.Pipe)
	w.list(b.List)
	w.list(b.ElseList)
}

func (w *shapedWalk) check(name, what string) {
	if !shapedNames[name] {
		w.t.Errorf("%s: its templates %s, which its shapes do not account for (hotPage.shape, markerView, parseShapes)", w.page, what)
	}
}
