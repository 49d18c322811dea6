package page

import (
	"html/template"
	"strings"
	"testing"
	"time"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/testkit/must"
	"github.com/retwis/retwis/internal/web/parts"
)

// TestParts renders the kept parts of pages through the cache, twice
// each (rendered, then kept), against their templates executed each
// time: the same HTML, escaped, with the compose form's key put in
// fresh; the parts that vary with more than their key (a search's query,
// a draft, failed logins) are not kept.
func TestParts(t *testing.T) {
	t.Parallel()
	pages := must.Value(parseTemplates(retwis.DefaultMaxStatusLen))(t)
	tmpl := pages.templates["home"]
	p := &keptParts{parts.NewCache(tmpl, 100)}
	direct := func(name string, data any) string {
		var b strings.Builder
		must.OK(t, tmpl.ExecuteTemplate(&b, name, data))
		return b.String()
	}
	odd := retwis.User{ID: 7, Username: `a"b<c>&d`}
	plain := retwis.User{ID: 8, Username: "bob"}
	views := []struct {
		name string
		v    View
		kept bool
	}{
		{"logged out", View{}, true},
		{"logged in", View{Viewer: &plain, Unread: 3}, true},
		{"an odd name", View{Viewer: &odd}, true},
		{"a search", View{Viewer: &plain, Query: `"><script>`}, false},
	}
	// check renders v twice with render, edit changing it before each
	// (round 0, then 1), against the template part executed directly,
	// and checks whether the part was kept.
	check := func(part, name string, v *View, kept bool, render func(*View) (template.HTML, error), edit func(round int, v *View)) {
		t.Helper()
		before := p.Len()
		for round := range 2 {
			edit(round, v)
			got := must.Value(render(v))(t)
			if want := direct(part, v); string(got) != want {
				t.Errorf("%s, %s, round %d:\n%s\nwant\n%s", part, name, round, got, want)
			}
		}
		if k := p.Len() > before; k != kept {
			t.Errorf("%s, %s: kept %v; want %v", part, name, k, kept)
		}
	}
	for _, tc := range views {
		check("nav", tc.name, &tc.v, tc.kept, p.nav, func(int, *View) {})
	}
	cards := []struct {
		name string
		v    View
		kept bool
	}{
		{"plain", View{Viewer: &plain, Profile: retwis.Profile{User: plain, Counts: retwis.Counts{Followers: 1, Following: 2}}}, true},
		{"an odd name", View{Viewer: &odd, Profile: retwis.Profile{User: odd}}, true},
		{"a draft", View{Viewer: &plain, Profile: retwis.Profile{User: plain}, Draft: "</textarea>", Error: "too long"}, false},
		{"failed logins", View{Viewer: &plain, Profile: retwis.Profile{User: plain}, LoginFailures: LoginFailures{N: 2, Last: time.Now()}}, false},
	}
	for _, tc := range cards {
		check("home-card", tc.name, &tc.v, tc.kept, p.homeCard, func(round int, v *View) { v.PostKey = []string{"KEY1", `a"&<`}[round] })
	}
	profiles := []View{
		{Profile: retwis.Profile{User: odd, DisplayName: "Ann <b>", Bio: "a bio"}},
		{Viewer: &plain, Profile: retwis.Profile{User: odd, Followed: true, Counts: retwis.Counts{Followers: 1}}},
		{Viewer: &plain, Profile: retwis.Profile{User: odd, Blocked: true}, Reported: true},
		{Viewer: &plain, Profile: retwis.Profile{User: odd}, Relationship: retwis.Relationship{FollowsYou: true, FollowedBy: []retwis.User{plain}, FollowedByCount: 3}},
		{Viewer: &plain, Profile: retwis.Profile{User: plain}}, // one's own
	}
	seen := map[string]bool{}
	for i, v := range profiles {
		v.Profile.Page = retwis.Page{Posts: []retwis.Post{{ID: int64(i), Author: "x"}}}
		c := profileCard{Profile: v.Profile, Relationship: v.Relationship, Reported: v.Reported}
		c.Profile.Page = retwis.Page{}
		if v.Viewer != nil {
			c.Viewer, c.LoggedIn = *v.Viewer, true
		}
		for round := range 2 {
			got := must.Value(p.profileCard(&v))(t)
			if want := direct("profile-card", c); string(got) != want {
				t.Errorf("profile card %d, round %d:\n%s\nwant\n%s", i, round, got, want)
			}
			if round == 0 && seen[string(got)] {
				t.Errorf("profile card %d renders as an earlier one:\n%s", i, got)
			}
			seen[string(got)] = true
		}
	}
	for i, v := range []View{{}, {Trends: []retwis.Trend{{Tag: "go", Weight: 2}}, Users: []string{"ann", "bob"}}, {Users: []string{"ann bob"}}} {
		before := p.Len()
		for round := range 2 {
			c := timelineCards{Users: v.Users}
			for _, tr := range v.Trends {
				c.Tags = append(c.Tags, tr.Tag)
			}
			got := must.Value(p.timelineCards(&v))(t)
			if want := direct("timeline-cards", c); string(got) != want {
				t.Errorf("timeline cards %d, round %d:\n%s\nwant\n%s", i, round, got, want)
			}
		}
		if p.Len() != before+1 {
			t.Errorf("timeline cards %d: kept %d parts; want 1", i, p.Len()-before)
		}
	}
	ss := []retwis.Suggestion{{User: plain, FollowedBy: 2}, {User: odd, FollowedBy: 1}}
	for round := range 2 {
		got := must.Value(p.suggestions(ss))(t)
		if want := direct("suggestion", ss[0]) + direct("suggestion", ss[1]); string(got) != want {
			t.Errorf("suggestions, round %d:\n%s\nwant\n%s", round, got, want)
		}
	}
}
