package retwis_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/retwis/retwis"
)

func TestNormalizeReport(t *testing.T) {
	for _, tc := range []struct {
		name, reason string
		posts        []int64
		wantReason   string
		wantPosts    []int64
		ok           bool
	}{
		{"an account", "  a  bot ", nil, "a bot", nil, true},
		{"five posts", "spam", []int64{5, 4, 3, 2, 1}, "spam", []int64{5, 4, 3, 2, 1}, true},
		{"a post named twice", "spam", []int64{7, 8, 7}, "spam", []int64{7, 8}, true},
		{"six posts", "spam", []int64{1, 2, 3, 4, 5, 6}, "", nil, false},
		{"six names of one post", "spam", []int64{1, 1, 1, 1, 1, 1}, "", nil, false},
		{"no reason", " \n ", []int64{1}, "", nil, false},
		{"the longest reason", strings.Repeat("é", retwis.MaxReasonLen), nil, strings.Repeat("é", retwis.MaxReasonLen), nil, true},
		{"too long a reason", strings.Repeat("x", retwis.MaxReasonLen+1), nil, "", nil, false},
	} {
		reason, posts, err := retwis.NormalizeReport(tc.reason, tc.posts)
		if (err == nil) != tc.ok || err != nil && retwis.ErrorKind(err) != retwis.Invalid ||
			reason != tc.wantReason || !slices.Equal(posts, tc.wantPosts) {
			t.Errorf("%s: %q, %v, %v; want %q, %v", tc.name, reason, posts, err, tc.wantReason, tc.wantPosts)
		}
	}
}
