package api_test

import (
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/retwis/retwis/internal/testkit/must"
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

// BenchmarkMediaTimeline times a first page of the home timeline
// through the API, 20 posts of text against 20 posts of 4 pictures each
// (two readers, each following one writer), over HTTP on a real Redis,
// warm: what media_attachments cost a refresh (the pictures come with
// the post hash, in no read of their own). Each iteration reads both, in
// turn (benchAB: text-µs/op, pictures-µs/op).
// go test -run X -bench MediaTimeline -count 7 ./internal/api/
func BenchmarkMediaTimeline(b *testing.B) {
	s := newServer(b)
	tokens := map[string]string{}
	for kind, pictures := range map[string]int{"text": 0, "pictures": 4} {
		writer, writerToken := s.User(kind + "_writer")
		_, tokens[kind] = s.User(kind + "_reader")
		for i := range 20 {
			form := url.Values{"status": {fmt.Sprint("post number ", i, " with #tag and https://example.com/x")}}
			for range pictures {
				form["media_ids[]"] = append(form["media_ids[]"], benchUpload(b, s, writerToken))
			}
			if r := s.Call(http.MethodPost, "/api/v1/statuses", writerToken, form); r.Status != http.StatusOK {
				b.Fatalf("post: %d %s", r.Status, r.Body)
			}
		}
		if r := s.Call(http.MethodPost, fmt.Sprint("/api/v1/accounts/", writer.ID, "/follow"), tokens[kind], nil); r.Status != http.StatusOK {
			b.Fatalf("follow: %d %s", r.Status, r.Body)
		}
	}
	s.Drain()
	benchAB(b, "µs", time.Microsecond, map[string]func(){
		"text":     func() { benchGetOnce(b, s.URL+"/api/v1/timelines/home", tokens["text"]) },
		"pictures": func() { benchGetOnce(b, s.URL+"/api/v1/timelines/home", tokens["pictures"]) },
	})
}

// benchAB runs each of runs once an iteration, in turn (so that what the
// machine's other load costs falls on all alike), and reports the time
// of each, "<name>-<unit>/op".
func benchAB(b *testing.B, unit string, per time.Duration, runs map[string]func()) {
	names := slices.Sorted(maps.Keys(runs))
	spent := make([]time.Duration, len(names))
	n := 0
	for b.Loop() {
		for i, name := range names {
			start := time.Now()
			runs[name]()
			spent[i] += time.Since(start)
		}
		n++
	}
	for i, name := range names {
		b.ReportMetric(float64(spent[i])/float64(per)/float64(n), name+"-"+unit+"/op")
	}
}

// benchGetOnce GETs target with token, answered 200.
func benchGetOnce(b *testing.B, target, token string) {
	req := must.Value(http.NewRequest(http.MethodGet, target, nil))(b)
	req.Header.Set("Authorization", "Bearer "+token)
	resp := must.Value(http.DefaultClient.Do(req))(b)
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b.Fatal(resp.Status)
	}
}

// benchUpload uploads a small photo through POST /api/v1/media and
// returns its id.
func benchUpload(b *testing.B, s *server, token string) string {
	var m struct{ ID string }
	r := upload(b, s, "/api/v1/media", token, photo(b, 64, 48), map[string]string{"description": "a gradient"})
	if r.Decode(b, &m); r.Status != http.StatusOK {
		b.Fatalf("upload: %d %s", r.Status, r.Body)
	}
	return m.ID
}

// BenchmarkMediaUpload times the upload of a 4-megapixel JPEG (2560 x
// 1600, 1.3 MB) through the API until it is ready, in turn (benchAB):
// POST /api/v1/media, which answers once processed (v1-ms/op), and POST
// /api/v2/media then GET /api/v1/media/:id polled every millisecond
// until 200, as apps poll (v2-ms/op); the media service with its
// default pool (one worker on 2 cores).
// go test -run X -bench MediaUpload -count 7 ./internal/api/
func BenchmarkMediaUpload(b *testing.B) {
	s := newServer(b)
	_, token := s.User("alice")
	body := multipartBody(b, nil, map[string][]byte{"file": photo(b, 2560, 1600)})
	benchAB(b, "ms", time.Millisecond, map[string]func(){
		"v1": func() {
			if r := s.Call(http.MethodPost, "/api/v1/media", token, body); r.Status != http.StatusOK {
				b.Fatalf("upload: %d %s", r.Status, r.Body)
			}
		},
		"v2": func() {
			var m struct{ ID string }
			r := s.Call(http.MethodPost, "/api/v2/media", token, body)
			for r.Decode(b, &m); r.Status == http.StatusAccepted || r.Status == http.StatusPartialContent; r.Decode(b, &m) {
				time.Sleep(time.Millisecond)
				r = s.Call(http.MethodGet, "/api/v1/media/"+m.ID, token, nil)
			}
			if r.Status != http.StatusOK {
				b.Fatalf("upload: %d %s", r.Status, r.Body)
			}
		},
	})
}
