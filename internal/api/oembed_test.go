package api_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// TestOEmbed: a public post's link has an oEmbed, its text escaped in a
// blockquote with its author and link, behind its content warning; a
// private post, a link of another server, an unknown post and a bad
// maxwidth have none, and a format other than json is refused.
func TestOEmbed(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	_, token := s.User("alice")
	var public, private struct{ ID string }
	s.Call("POST", "/api/v1/statuses", token, map[string]string{"status": "fish & <chips>", "spoiler_text": "food"}).Decode(t, &public)
	s.Call("POST", "/api/v1/statuses", token, map[string]string{"status": "secret", "visibility": "private"}).Decode(t, &private)
	var o struct {
		Type, Version, HTML string
		AuthorName          string `json:"author_name"`
		ProviderURL         string `json:"provider_url"`
		Width               int
		Height              *int
	}
	link := s.URL + "/@alice/" + public.ID
	r := s.Call(http.MethodGet, "/api/oembed?maxwidth=300&url="+url.QueryEscape(link), "", nil)
	r.Decode(t, &o)
	if r.Status != http.StatusOK || o.Type != "rich" || o.Version != "1.0" || o.AuthorName != "alice" || o.ProviderURL != s.URL+"/" || o.Width != 300 || o.Height != nil {
		t.Fatalf("oembed: %d %s", r.Status, r.Body)
	}
	for _, want := range []string{`<blockquote class="retwis-embed"`, "<summary>food</summary>", "fish &amp; &lt;chips&gt;", `href="` + s.URL + `/u/alice"`, `href="` + s.URL + `/p/` + public.ID + `"`} {
		if !strings.Contains(o.HTML, want) {
			t.Errorf("html lacks %q: %s", want, o.HTML)
		}
	}
	for _, c := range []struct {
		query  string
		status int
	}{
		{"url=" + url.QueryEscape(s.URL+"/p/"+private.ID), 404},
		{"url=" + url.QueryEscape("https://elsewhere.example/p/"+public.ID), 404},
		{"url=" + url.QueryEscape(s.URL+"/p/999999"), 404},
		{"url=" + url.QueryEscape(s.URL+"/u/alice"), 404},
		{"maxwidth=50&url=" + url.QueryEscape(link), 400},
		{"format=xml&url=" + url.QueryEscape(link), 501},
	} {
		if r := s.Call(http.MethodGet, "/api/oembed?"+c.query, "", nil); r.Status != c.status || r.ErrorMessage(t) == "" {
			t.Errorf("oembed?%s: %d %s; want %d with a message", c.query, r.Status, r.Body, c.status)
		}
	}
}
