package store

import (
	"context"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis/internal/redisconn"
	"github.com/retwis/retwis/internal/store/index"
	"github.com/retwis/retwis/internal/store/schema"
)

// LeaveLists takes member out of every list of owner's that holds it
// (an unfollow does, and so a block): a list holds only accounts its
// owner follows. It reads member's reverse index (schema.Listed) and
// writes in one pipeline; the lists themselves are internal/store/lists'.
func (s *Store) LeaveLists(ctx context.Context, owner, member int64) error {
	held, err := s.C.Do(ctx, s.C.B().Smembers().Key(schema.Listed(member)).Build()).AsStrSlice()
	if err != nil {
		return s.Wrap("unfollow: lists", err)
	}
	var cmds rueidis.Commands
	for _, m := range held {
		if o, lid, ok := schema.ParseListedMember(m); ok && o == owner {
			s.Written.Add(schema.ListMembers(owner, lid))
			cmds = append(cmds, index.ListLeaveCmds(s.C, owner, lid, member)...)
		}
	}
	if len(cmds) == 0 {
		return nil
	}
	return s.Wrap("unfollow: lists", redisconn.FirstErr(s.C.DoMulti(ctx, cmds...)))
}
