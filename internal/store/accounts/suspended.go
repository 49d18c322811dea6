package accounts

import (
	"context"
	"strconv"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis/internal/store/schema"
)

// A suspended account is left out of every listing of accounts, as a
// deleted one is, until its suspension is lifted: the newest accounts,
// the people search and completion, the welcome page's people, the
// directory, following and followers lists, and the API's lookups of an
// account (for everybody but moderators). Each of those reads the
// suspended set with SuspendedCmd, through the client-side cache (no
// round trip when warm; Redis invalidates every server's copy when it
// changes), and filters with Listed.

// SuspendedCmd is the cached read of the suspended accounts, for
// ParseSuspended.
func (s *Store) SuspendedCmd() rueidis.CacheableTTL {
	return rueidis.CT(s.C.B().Smembers().Key(schema.Suspended).Cache(), s.Opts.CacheTTL)
}

// ParseSuspended decodes the reply to SuspendedCmd: the suspended
// accounts' ids (nil for none).
func (s *Store) ParseSuspended(r rueidis.RedisResult) (map[int64]bool, error) {
	members, err := r.AsStrSlice()
	if err != nil {
		return nil, s.Wrap("read the suspended accounts", err)
	}
	var set map[int64]bool
	for _, m := range members {
		if uid, err := strconv.ParseInt(m, 10, 64); err == nil {
			if set == nil {
				set = make(map[int64]bool, len(members))
			}
			set[uid] = true
		}
	}
	return set, nil
}

// Suspended returns the suspended accounts' ids, through the client-side
// cache.
func (s *Store) Suspended(ctx context.Context) (map[int64]bool, error) {
	return s.ParseSuspended(s.CachedMulti(ctx, s.SuspendedCmd())[0])
}

// Listed returns, of items, those whose account (id of each) is not
// suspended, in their order.
func Listed[T any](suspended map[int64]bool, items []T, id func(T) int64) []T {
	if len(suspended) == 0 {
		return items
	}
	out := items[:0:0]
	for _, it := range items {
		if !suspended[id(it)] {
			out = append(out, it)
		}
	}
	return out
}
