package storetest

import (
	"testing"

	"github.com/retwis/retwis"
)

// PageAll walks a timeline by Before cursors from the top and returns
// every post id seen, calling between (if set) after each page.
func PageAll(t testing.TB, read func(c retwis.Cursor) retwis.Page, between func()) []int64 {
	t.Helper()
	var seen []int64
	c := retwis.Cursor{}
	for range 1000 {
		p := read(c)
		for _, post := range p.Posts {
			seen = append(seen, post.ID)
		}
		if !p.Older {
			return seen
		}
		c = retwis.Cursor{Before: p.Posts[len(p.Posts)-1].ID}
		if between != nil {
			between()
		}
	}
	t.Fatal("paging did not end")
	return nil
}
