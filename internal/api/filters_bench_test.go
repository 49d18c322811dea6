package api_test

import (
	"fmt"
	"net/http"
	"net/url"
	"testing"
)

// BenchmarkFilteredHomeTimeline times a home timeline of 40 posts
// through the API, warm, for a reader without filters and for one with
// three (15 keywords, whole words and not; a hide filter that matches
// none of the posts, warn filters a fifth of them), on the same server:
// the cost of applying filters. scripts/bench-filters.sh runs the two in
// turns, round after round, and prints their ratio.
func BenchmarkFilteredHomeTimeline(b *testing.B) {
	s := newServer(b)
	writer, writerToken := s.User("writer")
	for i := range 40 {
		s.Call(http.MethodPost, "/api/v1/statuses", writerToken,
			url.Values{"status": {fmt.Sprint("post number ", i, " about ", []string{"gardening", "soup", "dragons", "trains", "rain"}[i%5], " with #tag and https://example.com/x")}})
	}
	tokens := map[string]string{}
	for _, name := range []string{"unfiltered", "filtered"} {
		_, tokens[name] = s.User(name)
		if r := s.Call(http.MethodPost, fmt.Sprint("/api/v1/accounts/", writer.ID, "/follow"), tokens[name], nil); r.Status != http.StatusOK {
			b.Fatalf("follow: %d %s", r.Status, r.Body)
		}
	}
	for _, f := range []string{
		`{"title": "Spoilers", "context": ["home"], "filter_action": "hide", "keywords_attributes": [{"keyword": "dragon"}, {"keyword": "finale"}, {"keyword": "ending", "whole_word": false}, {"keyword": "leak"}, {"keyword": "season 3"}]}`,
		`{"title": "Food", "context": ["home", "public"], "keywords_attributes": [{"keyword": "soup"}, {"keyword": "stew", "whole_word": false}, {"keyword": "café"}, {"keyword": "recipe"}, {"keyword": "bake"}]}`,
		`{"title": "Politics", "context": ["home", "thread"], "keywords_attributes": [{"keyword": "election"}, {"keyword": "vote"}, {"keyword": "ballot"}, {"keyword": "senate"}, {"keyword": "poll", "whole_word": false}]}`,
	} {
		if r := s.Call(http.MethodPost, "/api/v2/filters", tokens["filtered"], f); r.Status != http.StatusOK {
			b.Fatalf("filter: %d %s", r.Status, r.Body)
		}
	}
	s.Drain()
	for _, name := range []string{"unfiltered", "filtered"} {
		b.Run(name, func(b *testing.B) { benchGet(b, s.URL+"/api/v1/timelines/home?limit=40", tokens[name]) })
	}
}
