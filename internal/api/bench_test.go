package api_test

import (
	"fmt"
	"net/http"
	"net/url"
	"testing"
)

// BenchmarkHomeTimeline times a first page of the home timeline through
// the API (20 posts of another user, with mentions, tags and links),
// over HTTP on a real Redis, warm: what an app's refresh costs the
// server. go test -run X -bench HomeTimeline ./internal/api/
func BenchmarkHomeTimeline(b *testing.B) {
	s := newServer(b)
	_, token := s.User("reader")
	writer, writerToken := s.User("writer")
	for i := range 40 {
		s.Call(http.MethodPost, "/api/v1/statuses", writerToken,
			url.Values{"status": {fmt.Sprint("post number ", i, " with #tag, @reader and https://example.com/x")}})
	}
	if r := s.Call(http.MethodPost, fmt.Sprint("/api/v1/accounts/", writer.ID, "/follow"), token, nil); r.Status != http.StatusOK {
		b.Fatalf("follow: %d %s", r.Status, r.Body)
	}
	s.Drain()
	benchGet(b, s.URL+"/api/v1/timelines/home", token)
}

// BenchmarkNotifications times a page of 40 notifications (mentions,
// with their posts) and the unread count through the API, over HTTP on a
// real Redis, warm: what an app's refresh of its notifications tab and
// badge costs the server. go test -run X -bench Notifications ./internal/api/
func BenchmarkNotifications(b *testing.B) {
	s := newServer(b)
	reader, token := s.User("reader")
	_, writerToken := s.User("writer")
	for i := range 40 {
		s.Call(http.MethodPost, "/api/v1/statuses", writerToken, url.Values{"status": {fmt.Sprint("@", reader.Username, " number ", i)}})
	}
	s.Drain()
	for name, path := range map[string]string{"list": "/api/v1/notifications", "unread_count": "/api/v1/notifications/unread_count"} {
		b.Run(name, func(b *testing.B) { benchGet(b, s.URL+path, token) })
	}
}

// BenchmarkTrendingTags times the trends of 10 tags, with their week of
// history, through the API over HTTP on a real Redis, warm: what an
// app's Trending screen costs the server.
// go test -run X -bench TrendingTags ./internal/api/
func BenchmarkTrendingTags(b *testing.B) {
	s := newServer(b)
	_, token := s.User("writer")
	for i := range 10 {
		for range i + 1 {
			s.Post(token, fmt.Sprint("#tag", i))
		}
	}
	s.Drain()
	benchGet(b, s.URL+"/api/v1/trends/tags", "")
}

// benchGet times GETs of target, with token if not empty, each answered
// 200.
func benchGet(b *testing.B, target, token string) {
	req, err := http.NewRequest(http.MethodGet, target, nil)
	if err != nil {
		b.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for b.Loop() {
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			b.Fatal(resp.Status)
		}
	}
}

// BenchmarkListTimeline times a first page of a list's timeline and of
// the home timeline through the API, on the same 40 posts (the list
// holds their author, whom the reader follows), over HTTP on a real
// Redis, warm: the two sub-benchmarks run in turn, so -count
// interleaves them. go test -run X -bench ListTimeline -count 8 ./internal/api/
func BenchmarkListTimeline(b *testing.B) {
	s := newServer(b)
	_, token := s.User("reader")
	writer, writerToken := s.User("writer")
	for i := range 40 {
		s.Post(writerToken, fmt.Sprint("post number ", i, " with #tag and https://example.com/x"))
	}
	if r := s.Call(http.MethodPost, fmt.Sprint("/api/v1/accounts/", writer.ID, "/follow"), token, nil); r.Status != http.StatusOK {
		b.Fatalf("follow: %d %s", r.Status, r.Body)
	}
	var l struct{ ID string }
	r := s.Call(http.MethodPost, "/api/v1/lists", token, url.Values{"title": {"writers"}})
	if r.Decode(b, &l); l.ID == "" {
		b.Fatalf("list: %d %s", r.Status, r.Body)
	}
	if r := s.Call(http.MethodPost, "/api/v1/lists/"+l.ID+"/accounts", token, url.Values{"account_ids[]": {fmt.Sprint(writer.ID)}}); r.Status != http.StatusOK {
		b.Fatalf("add: %d %s", r.Status, r.Body)
	}
	s.Drain()
	b.Run("home", func(b *testing.B) { benchGet(b, s.URL+"/api/v1/timelines/home", token) })
	b.Run("list", func(b *testing.B) { benchGet(b, s.URL+"/api/v1/timelines/list/"+l.ID, token) })
}
