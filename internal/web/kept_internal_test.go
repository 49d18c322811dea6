package web

import (
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
	pages := must.Value(parseTemplates())(t)
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
		v    view
		kept bool
	}{
		{"logged out", view{}, true},
		{"logged in", view{Viewer: &plain, Unread: 3}, true},
		{"an odd name", view{Viewer: &odd}, true},
		{"a search", view{Viewer: &plain, Query: `"><script>`}, false},
	}
	for _, tc := range views {
		before := p.Len()
		for round := range 2 {
			got := must.Value(p.nav(&tc.v))(t)
			if want := direct("nav", &tc.v); string(got) != want {
				t.Errorf("nav, %s, round %d:\n%s\nwant\n%s", tc.name, round, got, want)
			}
		}
		if kept := p.Len() > before; kept != tc.kept {
			t.Errorf("nav, %s: kept %v; want %v", tc.name, kept, tc.kept)
		}
	}
	cards := []struct {
		name string
		v    view
		kept bool
	}{
		{"plain", view{Viewer: &plain, Profile: retwis.Profile{User: plain, Counts: retwis.Counts{Followers: 1, Following: 2}}}, true},
		{"an odd name", view{Viewer: &odd, Profile: retwis.Profile{User: odd}}, true},
		{"a draft", view{Viewer: &plain, Profile: retwis.Profile{User: plain}, Draft: "</textarea>", Error: "too long"}, false},
		{"failed logins", view{Viewer: &plain, Profile: retwis.Profile{User: plain}, LoginFailures: loginFailures{N: 2, Last: time.Now()}}, false},
	}
	for _, tc := range cards {
		before := p.Len()
		for _, key := range []string{"KEY1", `a"&<`} {
			tc.v.PostKey = key
			got := must.Value(p.homeCard(&tc.v))(t)
			if want := direct("home-card", &tc.v); string(got) != want {
				t.Errorf("home card, %s, key %s:\n%s\nwant\n%s", tc.name, key, got, want)
			}
		}
		if kept := p.Len() > before; kept != tc.kept {
			t.Errorf("home card, %s: kept %v; want %v", tc.name, kept, tc.kept)
		}
	}
	profiles := []view{
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
	for i, v := range []view{{}, {Trends: []retwis.Trend{{Tag: "go", Weight: 2}}, Users: []string{"ann", "bob"}}, {Users: []string{"ann bob"}}} {
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
