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
	req, err := http.NewRequest(http.MethodGet, s.URL+"/api/v1/timelines/home", nil)
	if err != nil {
		b.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
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
