package web_test

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"testing"
)

// BenchmarkFilteredHome times the home page (50 posts), warm, in
// parallel, for a reader without filters and for one with three (15
// keywords; a hide filter that matches none of the posts, warn filters
// a fifth of them, veiled), on the same site: the cost of applying
// filters to a page. scripts/bench-filters.sh runs the two in turns,
// round after round, and prints their ratio.
func BenchmarkFilteredHome(b *testing.B) {
	s := newSite(b)
	author := s.browser()
	author.signUp("author")
	readers := map[string]*browser{}
	for _, name := range []string{"unfiltered", "filtered"} {
		readers[name] = s.browser()
		readers[name].signUp(name)
		redirects(b, readers[name].post("/u/author/follow", nil), "/u/author")
	}
	for i := range 50 {
		topic := []string{"gardening", "soup", "dragons", "trains", "rain"}[i%5]
		author.post("/post", url.Values{"status": {fmt.Sprintf("post %d about %s, of a realistic length for a status update", i, topic)}})
	}
	for _, f := range []url.Values{
		{"title": {"Spoilers"}, "action": {"hide"}, "keywords": {"dragon, finale, ending, leak, season 3"}},
		{"title": {"Food"}, "action": {"warn"}, "keywords": {"soup, stew, café, recipe, bake"}},
		{"title": {"Politics"}, "action": {"warn"}, "keywords": {"election, vote, ballot, senate, poll"}},
	} {
		f["op"], f["context"], f["whole_word"] = []string{"create"}, []string{"home"}, []string{"1"}
		redirects(b, readers["filtered"].post("/settings/filters", f), "/settings/filters")
	}
	s.drain()
	for _, name := range []string{"unfiltered", "filtered"} {
		cookie := authCookie(readers[name].cookie())
		b.Run(name, func(b *testing.B) {
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					req, _ := http.NewRequest("GET", s.srv.URL+"/", nil)
					req.AddCookie(cookie)
					res, err := s.srv.Client().Do(req)
					if err != nil || res.StatusCode != 200 {
						b.Fatalf("home: %v %v", res, err)
					}
					io.Copy(io.Discard, res.Body)
					res.Body.Close()
				}
			})
		})
	}
}
