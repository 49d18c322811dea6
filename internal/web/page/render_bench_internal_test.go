package page

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	"github.com/retwis/retwis"
)

// BenchmarkRender measures rendering the hot pages alone (no Redis, no
// HTTP), each both ways: composed from its shape and kept parts, and its
// template executed (the kept parts and posts still kept). The home page
// shows the compose form, five suggestions and ten posts; a profile and
// the global timeline ten and fifty posts; each a link to older ones.
//
//	go test ./internal/web/page -run '^$' -bench Render -benchmem
func BenchmarkRender(b *testing.B) {
	ps, err := parseTemplates(retwis.DefaultMaxStatusLen)
	if err != nil {
		b.Fatal(err)
	}
	for _, page := range []struct {
		name string
		v    View
	}{{"home", homeBenchView()}, {"profile", profileBenchView()}, {"timeline", timelineBenchView()}} {
		b.Run(page.name+"/composed", func(b *testing.B) {
			benchRender(b, func(buf *bytes.Buffer, v *View) error { return ps.execute(buf, page.name, v) }, page.v)
		})
		b.Run(page.name+"/template", func(b *testing.B) {
			benchRender(b, func(buf *bytes.Buffer, v *View) error {
				return ps.templates[page.name].ExecuteTemplate(buf, "layout", v)
			}, page.v)
		})
	}
}

// benchRender renders v with render, into a buffer reused as the
// server's pool reuses it.
func benchRender(b *testing.B, render func(*bytes.Buffer, *View) error, v View) {
	var buf bytes.Buffer
	for b.Loop() {
		buf.Reset()
		if err := render(&buf, &v); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(buf.Len()), "bytes/page")
}

// benchPosts returns n posts of a realistic length.
func benchPosts(n int) []retwis.Post {
	posts := make([]retwis.Post, n)
	for i := range posts {
		posts[i] = retwis.Post{ID: int64(1000 + i), Author: "author", Body: "a post of a realistic length for a status update #tag @someone", Time: time.Now().Add(-time.Hour)}
	}
	return posts
}

// homeBenchView is a home page's view: a viewer with unread
// notifications, five people to follow, ten posts and a link to older
// ones.
func homeBenchView() View {
	u := retwis.User{ID: 1, Username: "reader"}
	v := View{Title: "Home", Viewer: &u, PostKey: "ABCDEFGHIJKLMNOPQRSTUVWXYZ", Unread: 3, Counted: true}
	v.Profile = retwis.Profile{User: u, Counts: retwis.Counts{Followers: 12, Following: 50}}
	for i := range 5 {
		v.Suggestions = append(v.Suggestions, retwis.Suggestion{User: retwis.User{ID: int64(100 + i), Username: fmt.Sprint("someone", i)}, FollowedBy: 3})
	}
	v.Page.Posts = benchPosts(10)
	v.Older = "/?before=1000"
	return v
}

// profileBenchView is a profile page's view, seen by another user who
// does not follow them: their counts, ten posts, a link to older ones.
func profileBenchView() View {
	u := retwis.User{ID: 1, Username: "reader"}
	author := retwis.User{ID: 2, Username: "author"}
	v := View{Title: author.Username, Viewer: &u, Unread: 3, Counted: true}
	v.Profile = retwis.Profile{User: author, Counts: retwis.Counts{Followers: 120, Following: 5}}
	v.Profile.Page.Posts = benchPosts(10)
	v.Older = retwis.ProfilePath(author.Username) + "?before=1000"
	return v
}

// timelineBenchView is the global timeline's view, logged out: ten
// trending tags, ten new users, fifty posts, a link to older ones.
func timelineBenchView() View {
	v := View{Title: "Timeline"}
	for i := range 10 {
		v.Trends = append(v.Trends, retwis.Trend{Tag: fmt.Sprint("tag", i)})
		v.Users = append(v.Users, fmt.Sprint("user", i))
	}
	v.Page.Posts = benchPosts(50)
	v.Older = "/timeline?before=1000"
	return v
}
