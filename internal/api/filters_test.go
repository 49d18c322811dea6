package api_test

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/mattn/go-mastodon"

	"github.com/retwis/retwis/internal/api/entity"
)

// createFilter creates a filter through the API and returns it.
func createFilter(t *testing.T, s *server, token string, body any) entity.Filter {
	t.Helper()
	var f entity.Filter
	r := s.Call(http.MethodPost, "/api/v2/filters", token, body)
	if r.Decode(t, &f); r.Status != http.StatusOK || f.ID == "" {
		t.Fatalf("create a filter: %d %s", r.Status, r.Body)
	}
	return f
}

// statusTexts returns the ids of statuses with the keywords of their
// filtered, as go-mastodon reads them, by content.
func filteredOf(statuses []*mastodon.Status) map[string][]string {
	out := map[string][]string{}
	for _, st := range statuses {
		var kws []string
		for _, f := range st.Filtered {
			kws = append(kws, f.Filter.Title+":"+f.Filter.FilterAction)
			kws = append(kws, f.KeywordMatches...)
			kws = append(kws, f.StatusMatches...)
		}
		out[st.Content] = kws
	}
	return out
}

// TestFiltersAPI: an app creates filters (JSON, with keywords_attributes
// as an array of objects; a form, as Tusky sends them), and the lists
// apply them in their contexts: a hide filter leaves its posts out of
// home, a warn filter's posts carry filtered (read by go-mastodon), the
// public timeline (no filter there) shows them all; v1 reads each
// keyword as a filter (go-mastodon); keywords and statuses are added,
// read, changed and removed by their routes.
func TestFiltersAPI(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	_, aliceToken := s.User("alice")
	_, bobToken := s.User("bob")
	alice := s.Mastodon(&mastodon.Config{AccessToken: aliceToken})
	bob, _ := s.Store.UserByName(t.Context(), "bob")
	if r := s.Call(http.MethodPost, "/api/v1/accounts/"+entity.ID(bob.ID)+"/follow", aliceToken, nil); r.Status != http.StatusOK {
		t.Fatalf("follow: %d %s", r.Status, r.Body)
	}
	hide := createFilter(t, s, aliceToken, `{"title": "Spoilers", "context": ["home", "notifications"], "filter_action": "hide",
		"keywords_attributes": [{"keyword": "dragon"}, {"keyword": "finale", "whole_word": false}]}`)
	warn := createFilter(t, s, aliceToken, url.Values{"title": {"Food"}, "context[]": {"home", "thread"}, "expires_in": {"3600"},
		"keywords_attributes[][keyword]": {"soup", "café"}, "keywords_attributes[][whole_word]": {"false", "true"}})
	if len(hide.Keywords) != 2 || !hide.Keywords[0].WholeWord || hide.Keywords[1].WholeWord || hide.ExpiresAt != nil ||
		len(warn.Keywords) != 2 || warn.Keywords[1].Keyword != "café" || !warn.Keywords[1].WholeWord || warn.ExpiresAt == nil || warn.FilterAction != "warn" {
		t.Fatalf("the filters created: %+v %+v", hide, warn)
	}
	for _, text := range []string{"here be dragon", "the semifinales", "soupçon", "Café time", "plain"} {
		s.Post(bobToken, text)
	}
	s.Drain()
	home, err := alice.GetTimelineHome(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	got := filteredOf(home)
	want := map[string][]string{"<p>soupçon</p>": {"Food:warn", "soup"}, "<p>Café time</p>": {"Food:warn", "café"}, "<p>plain</p>": nil}
	if len(got) != len(want) {
		t.Errorf("home shows %v; want %v", got, want)
	}
	for content, kws := range want {
		if g, ok := got[content]; !ok || !slices.Equal(g, kws) {
			t.Errorf("home's %s: %v (shown %v); want %v", content, g, ok, kws)
		}
	}
	public, err := alice.GetTimelinePublic(t.Context(), false, nil)
	if err != nil || len(public) != 5 || len(filteredOf(public)["<p>soupçon</p>"]) != 0 {
		t.Errorf("the public timeline: %v, %v", err, filteredOf(public))
	}
	v1, err := alice.GetFilters(t.Context())
	if err != nil || len(v1) != 4 || v1[0].Phrase != "dragon" || !v1[0].Irreversible || v1[2].Irreversible || !slices.Equal(v1[2].Context, []string{"home", "thread"}) {
		t.Errorf("v1 filters: %v %+v", err, v1)
	}
	if one, err := alice.GetFilter(t.Context(), v1[3].ID); err != nil || one.Phrase != "café" || !one.WholeWord {
		t.Errorf("v1 filter %s: %v %+v", v1[3].ID, err, one)
	}
	s.Post(bobToken, "@alice a dragon for you")
	s.Post(bobToken, "@alice a cat for you")
	s.Drain()
	notes, err := alice.GetNotifications(t.Context(), nil)
	if err != nil || len(notes) != 1 || notes[0].Type != "mention" || notes[0].Status == nil || !strings.Contains(notes[0].Status.Content, "cat") {
		t.Errorf("notifications (the dragon's hidden): %v %+v", err, notes)
	}
	filterParts(t, s, aliceToken, warn)
}

// filterParts exercises the routes of a filter's keywords and statuses,
// and its update and deletion, on warn, a filter of token's user.
func filterParts(t *testing.T, s *server, token string, warn entity.Filter) {
	t.Helper()
	base := "/api/v2/filters/" + warn.ID
	var kw entity.FilterKeyword
	r := s.Call(http.MethodPost, base+"/keywords", token, url.Values{"keyword": {"stew"}, "whole_word": {"true"}})
	if r.Decode(t, &kw); r.Status != http.StatusOK || kw.Keyword != "stew" {
		t.Fatalf("add a keyword: %d %s", r.Status, r.Body)
	}
	r = s.Call(http.MethodPut, "/api/v2/filters/keywords/"+kw.ID, token, `{"keyword": "ragout"}`)
	if r.Decode(t, &kw); r.Status != http.StatusOK || kw.Keyword != "ragout" || !kw.WholeWord {
		t.Errorf("change a keyword: %d %s", r.Status, r.Body)
	}
	var kws []entity.FilterKeyword
	r = s.Call(http.MethodGet, base+"/keywords", token, nil)
	if r.Decode(t, &kws); r.Status != http.StatusOK || len(kws) != 3 {
		t.Errorf("a filter's keywords: %d %s", r.Status, r.Body)
	}
	if r := s.Call(http.MethodGet, "/api/v2/filters/keywords/"+kw.ID, token, nil); r.Status != http.StatusOK {
		t.Errorf("a keyword: %d %s", r.Status, r.Body)
	}
	pid := s.Post(token, "my own post")
	var ref entity.FilterStatus
	r = s.Call(http.MethodPost, base+"/statuses", token, url.Values{"status_id": {pid}})
	if r.Decode(t, &ref); r.Status != http.StatusOK || ref.StatusID != pid {
		t.Fatalf("add a status: %d %s", r.Status, r.Body)
	}
	if r := s.Call(http.MethodGet, "/api/v2/filters/statuses/"+ref.ID, token, nil); r.Status != http.StatusOK {
		t.Errorf("a status filter: %d %s", r.Status, r.Body)
	}
	if r := s.Call(http.MethodDelete, "/api/v2/filters/statuses/"+ref.ID, token, nil); r.Status != http.StatusOK {
		t.Errorf("remove a status: %d %s", r.Status, r.Body)
	}
	var refs []entity.FilterStatus
	r = s.Call(http.MethodGet, base+"/statuses", token, nil)
	if r.Decode(t, &refs); r.Status != http.StatusOK || len(refs) != 0 {
		t.Errorf("a filter's statuses after the removal: %d %s", r.Status, r.Body)
	}
	var f entity.Filter
	r = s.Call(http.MethodPut, base, token, `{"title": "Meals", "expires_in": "", "keywords_attributes": [{"id": "`+kws[0].ID+`", "_destroy": true}, {"keyword": "pie"}]}`)
	if r.Decode(t, &f); r.Status != http.StatusOK || f.Title != "Meals" || f.ExpiresAt != nil || len(f.Keywords) != 3 || f.Keywords[2].Keyword != "pie" {
		t.Errorf("update: %d %s", r.Status, r.Body)
	}
	for _, c := range []struct {
		method, path string
		body         any
		status       int
	}{
		{http.MethodPost, "/api/v2/filters", url.Values{"title": {"x"}, "context[]": {"everywhere"}}, http.StatusUnprocessableEntity},
		{http.MethodPost, "/api/v2/filters", url.Values{"context[]": {"home"}}, http.StatusUnprocessableEntity},
		{http.MethodPut, base, url.Values{"filter_action": {"mute"}}, http.StatusUnprocessableEntity},
		{http.MethodGet, "/api/v2/filters/999", nil, http.StatusNotFound},
		{http.MethodGet, "/api/v2/filters/keywords/999", nil, http.StatusNotFound},
		{http.MethodGet, "/api/v2/filters/" + warn.ID + "/nothing", nil, http.StatusNotFound},
		{http.MethodDelete, base, nil, http.StatusOK},
		{http.MethodGet, base, nil, http.StatusNotFound},
	} {
		if r := s.Call(c.method, c.path, token, c.body); r.Status != c.status {
			t.Errorf("%s %s: %d %s; want %d", c.method, c.path, r.Status, r.Body, c.status)
		}
	}
	_, readOnly := s.User("reader", "read:filters")
	if r := s.Call(http.MethodPost, "/api/v2/filters", readOnly, url.Values{"title": {"x"}, "context[]": {"home"}}); r.Status != http.StatusForbidden {
		t.Errorf("a filter created without write:filters: %d", r.Status)
	}
}
