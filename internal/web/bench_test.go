package web_test

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"syscall"
	"testing"
	"time"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/store/announcements"
	"github.com/retwis/retwis/internal/testkit/must"
)

// BenchmarkPages measures whole requests over loopback HTTP against a real
// redis-server, in parallel like real traffic. healthz (one PING) and a
// static file are the baselines: compare ratios, not absolute figures.
// Each also reports the process's CPU time a request (cpu-µs/op: the
// server's and the client's, not Redis's). The home page is measured
// again with an announcement to show.
//
//	go test ./internal/web -run '^$' -bench Pages -benchtime 3s -count 5
func BenchmarkPages(b *testing.B) {
	s := newSite(b)
	reader := s.browser()
	reader.signUp("reader")
	for a := range 5 {
		author := s.browser()
		author.signUp(fmt.Sprint("author", a))
		redirects(b, reader.post(fmt.Sprintf("/u/author%d/follow", a), nil), fmt.Sprintf("/u/author%d", a))
		for i := range 10 {
			author.post("/post", url.Values{"status": {fmt.Sprintf("post %d by author %d, of a realistic length for a status update", i, a)}})
		}
	}
	s.drain()
	cookie := authCookie(reader.cookie())
	third := linkOf(reader.get(linkOf(reader.get("/").body, "Older »")).body, "Older »")
	run := func(name, path string) { benchGet(b, s, cookie, name, path) }
	for _, path := range []string{"/healthz", "/static/style.css", "/", third, "/u/author1", "/timeline"} {
		run(path, path)
	}
	// The home page with an announcement the reader has not dismissed:
	// composed by its template rather than from its hot shapes.
	must.Value(announcements.New(s.st).Announce(b.Context(), "Maintenance tonight, see https://example.com/ops #ops", time.Time{}, time.Time{}))(b)
	run("/ with an announcement", "/")
}

// benchGet runs sub-benchmark name of b: GET path of s with cookie, in
// parallel, reporting the CPU time a request too (cpu-µs/op).
func benchGet(b *testing.B, s *site, cookie *http.Cookie, name, path string) {
	b.Run(name, func(b *testing.B) {
		cpu := cpuTime(b)
		defer func() { b.ReportMetric(float64(cpuTime(b)-cpu)/float64(b.N)/1e3, "cpu-µs/op") }()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				req, _ := http.NewRequest("GET", s.srv.URL+path, nil)
				req.AddCookie(cookie)
				res, err := s.srv.Client().Do(req)
				if err != nil || res.StatusCode != 200 {
					b.Fatalf("%s: %v %v", path, res, err)
				}
				io.Copy(io.Discard, res.Body)
				res.Body.Close()
			}
		})
	})
}

// cpuTime returns the CPU time the process has used, in ns: a request's
// on a machine that others share is steadier than its time.
func cpuTime(b *testing.B) int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// BenchmarkPost measures posting with 100 followers (one pipelined fanout).
//
//	go test ./internal/web -run '^$' -bench Post -benchtime 3s
func BenchmarkPost(b *testing.B) {
	s := newSite(b)
	author := s.browser()
	author.signUp("author")
	for i := range 100 {
		s.exec("ZADD", "followers:{1}", "1", fmt.Sprint(1000+i))
	}
	body := url.Values{"status": {"a status update of a realistic length, fanned out to a hundred followers"}}.Encode()
	b.ResetTimer()
	for b.Loop() {
		if r := author.postRaw("/post", body, nil); r.status != http.StatusSeeOther {
			b.Fatalf("post: %d %s", r.status, r.body)
		}
	}
}

// BenchmarkEdit edits a post through its form, as BenchmarkPost posts
// one: the edit written and its job queued (the site's worker runs the
// jobs meanwhile, each changing the post's tag); every retwis.MaxEdits
// edits, the post's history is cleared, off the clock.
func BenchmarkEdit(b *testing.B) {
	s := newSite(b)
	author := s.browser()
	author.signUp("author")
	redirects(b, author.post("/post", url.Values{"status": {"a status update to be edited #tag0"}}), "/")
	id := s.exec("LINDEX", "timeline", "0")
	for i := 1; b.Loop(); i++ {
		if i%retwis.MaxEdits == 0 {
			b.StopTimer()
			s.exec("HDEL", "post:"+id, "history", "edited")
			b.StartTimer()
		}
		body := url.Values{"status": {fmt.Sprintf("a status update of a realistic length, edited %d times #tag%d", i, i%3)}}.Encode()
		if r := author.postRaw("/p/"+id+"/edit", body, nil); r.status != http.StatusSeeOther {
			b.Fatalf("edit: %d %s", r.status, r.body)
		}
	}
}

// BenchmarkFavourite measures favouriting through the pages: the form's
// POST, favourite and unfavourite in turn (each one round trip for the
// mark, the post's count and the job, after the rate limit and the
// post's read), and its redirect; the delivery worker notifies the
// author meanwhile.
//
//	go test ./internal/web -run '^$' -bench Favourite -benchtime 3s
func BenchmarkFavourite(b *testing.B) {
	s := newSite(b)
	author, fan := s.browser(), s.browser()
	author.signUp("author")
	fan.signUp("fan")
	redirects(b, author.post("/post", url.Values{"status": {"a status update of a realistic length, to favourite"}}), "/")
	s.drain()
	pid := newestPost(b, fan.get("/timeline").body)
	actions := []string{"/p/" + pid + "/favourite", "/p/" + pid + "/unfavourite"}
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if r := fan.post(actions[i%2], nil); r.status != http.StatusSeeOther {
			b.Fatalf("favourite: %d %s", r.status, r.body)
		}
	}
}
