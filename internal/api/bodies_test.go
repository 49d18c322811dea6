package api_test

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/testkit/servertest"
)

// TestBodies: a status can be posted as JSON, as a form and as
// multipart, as the libraries send them; bad bodies get a clear 4xx and
// post nothing.
func TestBodies(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	u, token := s.User("writer")
	mp := multipartBody(t, map[string]string{"status": "multipart"}, nil)
	for _, tc := range []struct {
		name, contentType, body string
		status                  int
		text                    string // the post's text when it is posted
	}{
		{"json", "application/json", `{"status": "json", "visibility": "public"}`, 200, "json"},
		{"form", "application/x-www-form-urlencoded", "status=form+encoded", 200, "form encoded"},
		{"multipart", mp.ContentType, mp.Body, 200, "multipart"},
		{"json with charset", "application/json; charset=utf-8", `{"status": "charset"}`, 200, "charset"},
		{"bad json", "application/json", `{"status": "x"`, 400, ""},
		{"two objects", "application/json", `{"status": "x"} {}`, 400, ""},
		{"json array", "application/json", `["status"]`, 400, ""},
		{"bad content type", "a/b/c", "status=x", 400, ""},
		{"bad form", "application/x-www-form-urlencoded", "status=%zz", 400, ""},
		{"too big", "application/json", `{"status": "` + strings.Repeat("x", 70<<10) + `"}`, 413, ""},
		{"lines", "application/json", `{"status": "one\r\ntwo\n\n\nthree <4> & \"5\""}`, 200, "one<br>two</p><p>three &lt;4&gt; &amp; &#34;5&#34;"},
		{"500 characters", "application/json", `{"status": "` + strings.Repeat("é", 500) + `"}`, 200, strings.Repeat("é", 500)},
		{"too long", "application/json", `{"status": "` + strings.Repeat("x", 501) + `"}`, 422, ""},
		{"empty", "application/json", `{"status": "   "}`, 422, ""},
		{"visibility unknown", "application/json", `{"status": "x", "visibility": "secret"}`, 422, ""},
		{"direct", "application/json", `{"status": "direct", "visibility": "direct"}`, 200, "direct"},
		{"media", "application/json", `{"status": "x", "media_ids": ["1"]}`, 422, ""},
		{"reply to nothing", "application/json", `{"status": "x", "in_reply_to_id": "12345"}`, 422, ""},
		{"reply to junk", "application/json", `{"status": "x", "in_reply_to_id": "abc"}`, 422, ""},
	} {
		r := s.Call(http.MethodPost, "/api/v1/statuses", token, servertest.RawBody{ContentType: tc.contentType, Body: tc.body})
		if r.Status != tc.status {
			t.Errorf("%s: %d %s; want %d", tc.name, r.Status, r.Body, tc.status)
			continue
		}
		if r.Status != http.StatusOK {
			r.ErrorMessage(t)
			continue
		}
		var st struct{ Content string }
		r.Decode(t, &st)
		if st.Content != "<p>"+tc.text+"</p>" {
			t.Errorf("%s: content %q; want %q", tc.name, st.Content, tc.text)
		}
	}
	s.Drain()
	r := s.Call(http.MethodGet, "/api/v1/accounts/"+id(u.ID)+"/statuses", "", nil)
	var posts []struct{ Content string }
	r.Decode(t, &posts)
	if len(posts) != 6 {
		t.Errorf("%d posts are shown to a visitor; want the 6 good public ones (the direct one is not shown): %s", len(posts), r.Body)
	}
}

// id writes an id as the API does.
func id(n int64) string { return strconv.FormatInt(n, 10) }

// TestIdempotencyKey: a request repeated with the same Idempotency-Key
// posts once and answers the same status; a key of
// retwis.MaxIdempotencyKeyLen bytes is taken, a longer one refused with
// 422 and nothing posted.
func TestIdempotencyKey(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	u, token := s.User("retrier")
	var ids []string
	for range 3 {
		r := s.Call(http.MethodPost, "/api/v1/statuses", token, url.Values{"status": {"once"}}, "Idempotency-Key", "k-1")
		var st struct{ ID string }
		r.Decode(t, &st)
		if r.Status != http.StatusOK {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
		ids = append(ids, st.ID)
	}
	if ids[0] != ids[1] || ids[1] != ids[2] {
		t.Errorf("three posts with one key: %v", ids)
	}
	r := s.Call(http.MethodPost, "/api/v1/statuses", token, url.Values{"status": {"once"}}, "Idempotency-Key", "k-2")
	var st struct{ ID string }
	r.Decode(t, &st)
	if st.ID == ids[0] {
		t.Error("another key gave the same post")
	}
	longest := strings.Repeat("k", retwis.MaxIdempotencyKeyLen)
	if r := s.Call(http.MethodPost, "/api/v1/statuses", token, url.Values{"status": {"longest key"}}, "Idempotency-Key", longest); r.Status != http.StatusOK {
		t.Errorf("a key of %d bytes: %d %s", len(longest), r.Status, r.Body)
	}
	r = s.Call(http.MethodPost, "/api/v1/statuses", token, url.Values{"status": {"too long"}}, "Idempotency-Key", longest+"k")
	if r.Status != http.StatusUnprocessableEntity || !strings.Contains(r.ErrorMessage(t), "Idempotency-Key") {
		t.Errorf("a key one byte too long: %d %s; want 422", r.Status, r.Body)
	}
	if sum, err := s.Store.Summary(t.Context(), u.ID); err != nil || sum.Posts != 3 {
		t.Errorf("posts after the refused key: %d, %v; want 3", sum.Posts, err)
	}
}

// TestArrayParameters: relationships takes ids as id[]=…&id[]=… (and
// id=…), in the query.
func TestArrayParameters(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	a, token := s.User("a")
	b, _ := s.User("b")
	c, _ := s.User("c")
	if err := s.Store.Follow(t.Context(), a.ID, b.ID); err != nil {
		t.Fatal(err)
	}
	if err := s.Store.Follow(t.Context(), c.ID, a.ID); err != nil {
		t.Fatal(err)
	}
	r := s.Call(http.MethodGet, "/api/v1/accounts/relationships?id[]="+id(b.ID)+"&id[]="+id(c.ID)+"&id="+id(a.ID), token, nil)
	var rels []struct {
		ID         string
		Following  bool
		FollowedBy bool `json:"followed_by"`
	}
	r.Decode(t, &rels)
	if len(rels) != 3 || rels[0].ID != id(b.ID) || !rels[0].Following || rels[0].FollowedBy ||
		rels[1].Following || !rels[1].FollowedBy || rels[2].Following {
		t.Errorf("relationships = %+v", rels)
	}
	if r := s.Call(http.MethodGet, "/api/v1/accounts/relationships?id[]=x", token, nil); r.Status != http.StatusUnprocessableEntity {
		t.Errorf("a bad id: %d", r.Status)
	}
	if r := s.Call(http.MethodGet, "/api/v1/accounts/relationships?"+strings.Repeat("id[]=1&", 101), token, nil); r.Status != http.StatusUnprocessableEntity {
		t.Errorf("101 ids: %d", r.Status)
	}
}

// TestNotFoundIsJSON: unknown paths and records answer Mastodon's JSON
// error, with CORS for web apps.
func TestNotFoundIsJSON(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	for _, path := range []string{"/api/v1/nothing", "/api/v1/statuses/999", "/api/v1/accounts/999", "/api/v1/statuses/abc", "/api/v1/accounts/lookup?acct=nobody"} {
		r := s.Call(http.MethodGet, path, "", nil)
		if r.Status != http.StatusNotFound || r.Header.Get("Access-Control-Allow-Origin") != "*" {
			t.Errorf("%s: %d, CORS %q", path, r.Status, r.Header.Get("Access-Control-Allow-Origin"))
		}
		r.ErrorMessage(t)
	}
	r := s.Call(http.MethodOptions, "/api/v1/statuses", "", nil, "Origin", "https://app.example", "Access-Control-Request-Method", "POST")
	if r.Status != http.StatusNoContent || !strings.Contains(r.Header.Get("Access-Control-Allow-Headers"), "Authorization") {
		t.Errorf("preflight: %d %v", r.Status, r.Header)
	}
}
