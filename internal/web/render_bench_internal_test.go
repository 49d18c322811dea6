package web

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	"github.com/retwis/retwis"
)

// BenchmarkRenderHome measures rendering the home page alone (no
// Redis, no HTTP): the layout, the compose form, five suggestions and
// ten posts already rendered once.
//
//	go test ./internal/web -run '^$' -bench RenderHome
func BenchmarkRenderHome(b *testing.B) {
	pages, err := parseTemplates()
	if err != nil {
		b.Fatal(err)
	}
	v := homeBenchView()
	var buf bytes.Buffer
	for b.Loop() {
		buf.Reset()
		if err := pages["home"].ExecuteTemplate(&buf, "layout", &v); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(buf.Len()), "bytes/page")
}

// homeBenchView is a home page's view: a viewer with unread
// notifications, five people to follow, ten posts and a link to older
// ones.
func homeBenchView() view {
	u := retwis.User{ID: 1, Username: "reader"}
	v := view{Title: "Home", Viewer: &u, PostKey: "ABCDEFGHIJKLMNOPQRSTUVWXYZ", Unread: 3, counted: true}
	v.Profile = retwis.Profile{User: u, Counts: retwis.Counts{Followers: 12, Following: 50}}
	for i := range 5 {
		v.Suggestions = append(v.Suggestions, retwis.Suggestion{User: retwis.User{ID: int64(100 + i), Username: fmt.Sprint("someone", i)}, FollowedBy: 3})
	}
	for i := range 10 {
		v.Page.Posts = append(v.Page.Posts, retwis.Post{ID: int64(1000 + i), Author: "author", Body: "a post of a realistic length for a status update #tag @someone", Time: time.Now().Add(-time.Hour)})
	}
	v.Older = "/?before=1000"
	return v
}
