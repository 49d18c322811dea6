package check

import (
	"context"
	"fmt"
	"strconv"

	"github.com/retwis/retwis/internal/store/kernel"
	"github.com/retwis/retwis/internal/store/schema"
)

// checkTagsFollowed verifies that each tag of the sets of tags followed
// keys (the truth) has its user among its followers, which delivery
// reads: else the user misses its posts.
func (s checker) checkTagsFollowed(ctx context.Context, keys []string, _ *checkRun) ([]finding, error) {
	entries, err := s.zentries(ctx, keys)
	if err != nil {
		return nil, err
	}
	var want []expectation
	for _, e := range entries {
		if u, ok := schema.TagsFollowedOf(e.key); ok {
			want = append(want, expectation{[]string{"ZADD", schema.TagFollowers(e.Member), score64(e.Score), kernel.ID(u)},
				"a follow of a tag missing from its followers", fmt.Sprintf("user %d follows #%s", u, e.Member), e.key})
		}
	}
	return s.missing(ctx, want)
}

// checkTagFollowers verifies that each follower of the tag followers
// keys follows the tag.
func (s checker) checkTagFollowers(ctx context.Context, keys []string, _ *checkRun) ([]finding, error) {
	entries, err := s.zentries(ctx, keys)
	if err != nil {
		return nil, err
	}
	var suspects []gone
	for _, e := range entries {
		f, ok := schema.TagFollowersOf(e.key)
		u, err := strconv.ParseInt(e.Member, 10, 64)
		if ok && err == nil {
			suspects = append(suspects, gone{s.C.B().Zscore().Key(schema.TagsFollowed(u)).Member(f).Build(),
				[]string{"ZREM", e.key, e.Member}, "a tag's follower who does not follow it", fmt.Sprintf("user %d among the followers of #%s", u, f), e.key})
		}
	}
	return s.stale(ctx, suspects)
}
