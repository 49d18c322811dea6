package check

import (
	"context"
	"fmt"
	"strconv"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis/internal/store/kernel"
	"github.com/retwis/retwis/internal/store/schema"
)

// checkFavourites verifies that each favourite of the users' favourites
// keys (the truth) is of a post that exists, and is among who favourited
// the post.
func (s checker) checkFavourites(ctx context.Context, keys []string, run *checkRun) ([]finding, error) {
	entries, err := s.zentries(ctx, keys)
	if err != nil {
		return nil, err
	}
	var refs []postRef
	for _, e := range entries {
		if pid, err := strconv.ParseInt(e.Member, 10, 64); err == nil {
			refs = append(refs, postRef{pid, e.key, []string{"ZREM", e.key, e.Member}})
		}
	}
	found, err := s.refsToGone(ctx, run, refs, "a favourite of a post that is gone")
	if err != nil {
		return nil, err
	}
	gone := map[[2]string]bool{}
	for _, f := range found {
		gone[[2]string{f.fix[0][1], f.fix[0][2]}] = true
	}
	var want []expectation
	for _, e := range entries {
		uid, ok := schema.FavouritesOf(e.key)
		if pid := atoi(e.Member); ok && pid > 0 && !gone[[2]string{e.key, e.Member}] {
			want = append(want, expectation{[]string{"ZADD", schema.FavouritedBy(pid), score64(e.Score), kernel.ID(uid)},
				"a favourite missing from who favourited the post", fmt.Sprintf("user %d favourited %d", uid, pid), e.key})
		}
	}
	more, err := s.missing(ctx, want)
	return append(found, more...), err
}

// checkFavouritedBy verifies each set of who favourited a post (the
// favourited_by keys) and the post's count against the truth: the post
// exists (else both go), each user in it has the post among their
// favourites (else the user goes), and the count is of those who have.
func (s checker) checkFavouritedBy(ctx context.Context, keys []string, _ *checkRun) ([]finding, error) {
	entries, err := s.zentries(ctx, keys)
	if err != nil {
		return nil, err
	}
	b := s.C.B()
	var cmds rueidis.Commands
	for _, k := range keys {
		pid, _ := schema.FavouritedByOf(k)
		cmds = append(cmds, b.Exists().Key(schema.Post(pid)).Build(), b.Hget().Key(schema.Counts(pid)).Field(schema.FieldFavourites).Build())
	}
	for _, e := range entries {
		pid, _ := schema.FavouritedByOf(e.key)
		cmds = append(cmds, b.Zscore().Key(schema.Favourites(atoi(e.Member))).Member(kernel.ID(pid)).Build())
	}
	res := s.doMany(ctx, cmds)
	var found []finding
	postGone := map[string]bool{}
	for i, k := range keys {
		pid, _ := schema.FavouritedByOf(k)
		exists, err := res[2*i].AsInt64()
		if err != nil {
			return nil, s.Wrap("check: read posts", err)
		}
		if postGone[k] = exists == 0; postGone[k] {
			found = append(found, finding{"the favourites of a post that is gone", fmt.Sprintf("post %d", pid), k,
				[][]string{{"DEL", k}, {"DEL", schema.Counts(pid)}}})
		}
	}
	valid := map[string]int64{}
	for i, e := range entries {
		pid, _ := schema.FavouritedByOf(e.key)
		if postGone[e.key] {
			continue
		}
		switch err := res[2*len(keys)+i].Error(); {
		case err == nil:
			valid[e.key]++
		case rueidis.IsRedisNil(err):
			found = append(found, finding{"who favourited a post lists one who did not", fmt.Sprintf("user %s of post %d", e.Member, pid), e.key,
				[][]string{{"ZREM", e.key, e.Member}}})
		default:
			return nil, s.Wrap("check: read favourites", err)
		}
	}
	for i, k := range keys {
		pid, _ := schema.FavouritedByOf(k)
		if count, _ := res[2*i+1].AsInt64(); !postGone[k] && count != valid[k] {
			fix := []string{"HSET", schema.Counts(pid), schema.FieldFavourites, strconv.FormatInt(valid[k], 10)}
			if valid[k] == 0 {
				fix = []string{"HDEL", schema.Counts(pid), schema.FieldFavourites}
			}
			found = append(found, finding{"a post's count of favourites is wrong", fmt.Sprintf("post %d: %d, not %d", pid, count, valid[k]), k,
				[][]string{fix}})
		}
	}
	return found, nil
}

// atoi reads a user id of a set's member (0 for none).
func atoi(s string) int64 {
	n, _ := strconv.ParseInt(s, 10, 64)
	return n
}
