package check

import (
	"context"
	"fmt"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis/internal/store/kernel"
	"github.com/retwis/retwis/internal/store/schema"
)

// checkListed verifies that each list of the listed keys, the reverse
// index of the lists' members that delivery reads, holds the key's
// user: a stale entry would push the user's posts onto a list that does
// not show them.
func (s checker) checkListed(ctx context.Context, keys []string, _ *checkRun) ([]finding, error) {
	cmds := make(rueidis.Commands, len(keys))
	for i, k := range keys {
		cmds[i] = s.C.B().Smembers().Key(k).Build()
	}
	var suspects []gone
	for i, r := range s.doMany(ctx, cmds) {
		held, err := r.AsStrSlice()
		if err != nil {
			return nil, s.Wrap("check: lists", err)
		}
		u, ok := schema.ListedOf(keys[i])
		for _, m := range held {
			if owner, lid, isList := schema.ParseListedMember(m); ok && isList {
				suspects = append(suspects, gone{s.C.B().Sismember().Key(schema.ListMembers(owner, lid)).Member(kernel.ID(u)).Build(),
					[]string{"SREM", keys[i], m}, "a list in the reverse index that does not hold its member", fmt.Sprintf("list %s among the lists of %d", m, u), keys[i]})
			}
		}
	}
	return s.stale(ctx, suspects)
}
