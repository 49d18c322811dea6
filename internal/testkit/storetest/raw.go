package storetest

import (
	"context"
	"strconv"
	"testing"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis"
)

// Do runs a raw command on c and returns its reply as a string ("" for
// nil, an integer in decimal), failing t on an error.
func Do(ctx context.Context, t testing.TB, c rueidis.Client, args ...string) string {
	t.Helper()
	msg, err := c.Do(ctx, c.B().Arbitrary(args...).Build()).ToMessage()
	if rueidis.IsRedisNil(err) {
		return ""
	}
	if err != nil {
		t.Fatalf("%v: %v", args, err)
	}
	if msg.IsInt64() {
		n, _ := msg.AsInt64()
		return strconv.FormatInt(n, 10)
	}
	v, _ := msg.ToString()
	return v
}

// Strs runs a raw command on c whose reply is a list of strings, failing
// t on an error.
func Strs(ctx context.Context, t testing.TB, c rueidis.Client, args ...string) []string {
	t.Helper()
	v, err := c.Do(ctx, c.B().Arbitrary(args...).Build()).AsStrSlice()
	if err != nil {
		t.Fatalf("%v: %v", args, err)
	}
	return v
}

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
