package check

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/redis/rueidis"
	"github.com/retwis/retwis/internal/store/kernel"
	"github.com/retwis/retwis/internal/store/schema"
)

// checkBoostMarks verifies that each mark of the boosts keys (a user's
// boosted post -> their boost) is of a boost that exists, and is among
// who boosted the post; the marks are the truth of who boosted.
func (s checker) checkBoostMarks(ctx context.Context, keys []string, _ *checkRun) ([]finding, error) {
	uids, res := s.ReadEach(ctx, keys, schema.BoostsOf, func(k string) rueidis.Completed {
		return s.C.B().Hgetall().Key(k).Build()
	})
	var suspects []gone
	var want []expectation
	now := strconv.FormatInt(time.Now().UnixMilli(), 10)
	for i, r := range res {
		marks, err := r.AsStrMap()
		if err != nil {
			return nil, s.Wrap("check: read boosts", err)
		}
		key := schema.Boosts(uids[i])
		for post, boost := range marks {
			pid, err1 := strconv.ParseInt(post, 10, 64)
			bid, err2 := strconv.ParseInt(boost, 10, 64)
			if err1 != nil || err2 != nil {
				continue
			}
			where := fmt.Sprintf("user %d's boost %d of post %d", uids[i], bid, pid)
			suspects = append(suspects, gone{s.C.B().Exists().Key(schema.Post(bid)).Build(),
				[]string{"HDEL", key, post}, "a mark of a boost that is gone", where, key})
			want = append(want, expectation{[]string{"ZADD", schema.RebloggedBy(pid), "NX", now, kernel.ID(uids[i])},
				"a boost missing from who boosted its post", where, key})
		}
	}
	found, err := s.stale(ctx, suspects)
	if err != nil {
		return nil, err
	}
	goneBoosts := map[string]bool{}
	for _, f := range found {
		goneBoosts[f.where] = true
	}
	want = slices.DeleteFunc(want, func(e expectation) bool { return goneBoosts[e.where] })
	more, err := s.missing(ctx, want)
	return append(found, more...), err
}

// checkRebloggedBy verifies that each booster of the reblogged_by keys
// has the mark of their boost of the post, and that the post's count of
// boosts is how many boosters are left.
func (s checker) checkRebloggedBy(ctx context.Context, keys []string, _ *checkRun) ([]finding, error) {
	entries, err := s.zentries(ctx, keys)
	if err != nil {
		return nil, err
	}
	var suspects []gone
	boosters := map[string]int64{}
	for _, e := range entries {
		pid, ok := schema.RebloggedByOf(e.key)
		u, err := strconv.ParseInt(e.Member, 10, 64)
		if ok && err == nil {
			boosters[e.key]++
			suspects = append(suspects, gone{s.C.B().Hexists().Key(schema.Boosts(u)).Field(kernel.ID(pid)).Build(),
				[]string{"ZREM", e.key, e.Member}, "a booster who did not boost", fmt.Sprintf("user %d among who boosted %d", u, pid), e.key})
		}
	}
	found, err := s.stale(ctx, suspects)
	if err != nil {
		return nil, err
	}
	for _, f := range found {
		boosters[f.key]--
	}
	more, err := s.boostCounts(ctx, keys, boosters)
	return append(found, more...), err
}

// boostCounts returns a finding for each post of the reblogged_by keys
// whose count of boosts is not its number of boosters, with the count
// set right as the fix.
func (s checker) boostCounts(ctx context.Context, keys []string, boosters map[string]int64) ([]finding, error) {
	pids, res := s.ReadEach(ctx, keys, schema.RebloggedByOf, func(k string) rueidis.Completed {
		pid, _ := schema.RebloggedByOf(k)
		return s.C.B().Hget().Key(schema.Counts(pid)).Field(schema.FieldReblogs).Build()
	})
	var found []finding
	for i, r := range res {
		n, err := r.AsInt64()
		if err != nil && !rueidis.IsRedisNil(err) {
			return nil, s.Wrap("check: read counts", err)
		}
		key, want := schema.RebloggedBy(pids[i]), boosters[schema.RebloggedBy(pids[i])]
		if n != want {
			found = append(found, finding{what: "a count of boosts that is wrong", key: key,
				where: fmt.Sprintf("post %d counts %d boosts of %d", pids[i], n, want),
				fix:   [][]string{{"HSET", schema.Counts(pids[i]), schema.FieldReblogs, strconv.FormatInt(want, 10)}}})
		}
	}
	return found, nil
}
