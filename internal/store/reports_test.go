package store_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/store"
	"github.com/retwis/retwis/internal/store/posts"
)

// TestReportIsOneWrite: a report of several posts is checked whole and
// filed as one entry or not at all. Six posts, a post of another
// account (named with the account or as the first post's author), a
// post that does not exist, no reason and one's own post are refused
// and write nothing, not even a use of the rate limit; a report of five
// posts counts once against the limit of two reports an hour, so that
// one more passes and the next is refused, writing nothing.
func TestReportIsOneWrite(t *testing.T) {
	t.Parallel()
	for _, db := range databases {
		t.Run(db.Name, func(t *testing.T) {
			t.Parallel()
			f := newFixtureWith(t, db.URL(t), store.Options{Limits: store.Limits{Reports: retwis.Rate{Count: 2, Per: time.Hour}}}, true)
			alice, bob, carol := f.Register(t, "alice"), f.Register(t, "bob"), f.Register(t, "carol")
			var bobs []int64
			for i := range retwis.MaxReportedPosts + 1 {
				bobs = append(bobs, f.post(t, posts.Draft{Author: bob.ID, Text: fmt.Sprint("spam ", i)}).ID)
			}
			carols := f.post(t, posts.Draft{Author: carol.ID, Text: "fine"}).ID
			f.Drain(t)
			refuseReports(t, f, alice, bob, bobs, carols)
			five := bobs[:retwis.MaxReportedPosts]
			rep, err := f.St.Report(f.Ctx, alice.ID, bob.ID, five, "all spam")
			if err != nil || rep.User != bob || rep.By != alice || !slices.Equal(rep.Posts, five) {
				t.Fatalf("a report of five posts: %+v, %v", rep, err)
			}
			open, err := f.St.OpenReports(f.Ctx, 10)
			if err != nil || len(open) != 1 || open[0].ID != rep.ID || !slices.Equal(open[0].Posts, five) || open[0].User != bob {
				t.Fatalf("open reports: %+v, %v; want the one report of five posts", open, err)
			}
			if _, err := f.St.Report(f.Ctx, alice.ID, 0, []int64{bobs[5]}, "more spam"); err != nil {
				t.Fatalf("a second report, within the limit of two: %v", err)
			}
			before := f.Snapshot(t)
			if _, err := f.St.Report(f.Ctx, alice.ID, carol.ID, nil, "a third"); retwis.ErrorKind(err) != retwis.TooMany {
				t.Fatalf("a third report in the hour: %v; want too many", err)
			}
			f.AssertUnchanged(t, before)
		})
	}
}

// refuseReports files the reports that must be refused, each of which
// must write nothing.
func refuseReports(t *testing.T, f *fixture, alice, bob retwis.User, bobs []int64, carols int64) {
	t.Helper()
	before := f.Snapshot(t)
	for _, tc := range []struct {
		name   string
		by     retwis.User
		uid    int64
		pids   []int64
		reason string
		kind   retwis.Kind
	}{
		{"six posts", alice, bob.ID, bobs, "spam", retwis.Invalid},
		{"another account's post", alice, bob.ID, []int64{bobs[0], carols, bobs[1]}, "spam", retwis.Invalid},
		{"posts of two authors", alice, 0, []int64{carols, bobs[0]}, "spam", retwis.Invalid},
		{"a post that is not", alice, bob.ID, []int64{bobs[0], 999}, "spam", retwis.NotFound},
		{"no reason", alice, bob.ID, bobs[:2], " ", retwis.Invalid},
		{"too long a reason", alice, bob.ID, bobs[:2], strings.Repeat("x", retwis.MaxReasonLen+1), retwis.Invalid},
		{"one's own posts", bob, 0, bobs[:2], "oops", retwis.Invalid},
		{"oneself", bob, bob.ID, nil, "me", retwis.Invalid},
	} {
		if _, err := f.St.Report(f.Ctx, tc.by.ID, tc.uid, tc.pids, tc.reason); retwis.ErrorKind(err) != tc.kind {
			t.Errorf("%s: %v; want kind %v", tc.name, err, tc.kind)
		}
	}
	f.AssertUnchanged(t, before)
}
