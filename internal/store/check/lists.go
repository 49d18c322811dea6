package check

import (
	"context"
	"fmt"
	"slices"
	"strconv"

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

// checkListMembers verifies that each member of the lists' members keys
// is followed by the list's owner (else it leaves the list) and, if so,
// has the list in its reverse index (else it is put back there, so that
// delivery pushes the member's posts onto the list).
func (s checker) checkListMembers(ctx context.Context, keys []string, _ *checkRun) ([]finding, error) {
	cmds := make(rueidis.Commands, len(keys))
	for i, k := range keys {
		cmds[i] = s.C.B().Smembers().Key(k).Build()
	}
	var unfollowed, unlisted []gone
	for i, r := range s.doMany(ctx, cmds) {
		members, err := r.AsStrSlice()
		if err != nil {
			return nil, s.Wrap("check: list members", err)
		}
		owner, lid, ok := schema.ListMembersOf(keys[i])
		for _, m := range members {
			u, err := strconv.ParseInt(m, 10, 64)
			if !ok || err != nil {
				continue
			}
			where, listed := fmt.Sprintf("user %d in list %d of %d", u, lid, owner), schema.ListedMember(owner, lid)
			unfollowed = append(unfollowed, gone{s.C.B().Zscore().Key(schema.Following(owner)).Member(m).Build(),
				[]string{"SREM", keys[i], m}, "a list member its owner does not follow", where, keys[i]})
			unlisted = append(unlisted, gone{s.C.B().Sismember().Key(schema.Listed(u)).Member(listed).Build(),
				[]string{"SADD", schema.Listed(u), listed}, "a list member without the list in its reverse index", where, keys[i]})
		}
	}
	found, err := s.stale(ctx, unfollowed)
	if err != nil {
		return nil, err
	}
	unlisted = slices.DeleteFunc(unlisted, func(g gone) bool {
		return slices.ContainsFunc(found, func(f finding) bool { return f.where == g.where })
	})
	more, err := s.stale(ctx, unlisted)
	return append(found, more...), err
}
