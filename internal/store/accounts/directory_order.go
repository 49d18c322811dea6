package accounts

import (
	"context"
	"strconv"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis/internal/store/schema"
)

// MaxDirectoryOffset bounds how deep the client API's directory pages:
// beyond it, there is nothing (a bounded read, whatever is asked).
const MaxDirectoryOffset = 10_000

// Directory returns up to n users from offset (0 the first) of the
// client API's directory, the most recently active first (by their
// newest post; those who never posted are not among them), or with
// newest the most recent sign-ups first; suspended accounts left out,
// so that a page may hold fewer. Two cached reads.
func (s *Store) Directory(ctx context.Context, newest bool, offset, n int) ([]int64, error) {
	if offset < 0 || offset >= MaxDirectoryOffset || n < 1 {
		return nil, nil
	}
	start, stop := int64(offset), int64(offset+n-1)
	key := schema.UsersByActivity
	if newest {
		key = schema.UsersByTime
	}
	res := s.CachedMulti(ctx, rueidis.CT(s.C.B().Zrange().Key(key).Min(strconv.FormatInt(start, 10)).Max(strconv.FormatInt(stop, 10)).Rev().Cache(), s.Opts.CacheTTL),
		s.SuspendedCmd())
	members, err := res[0].AsStrSlice()
	if err != nil {
		return nil, s.Wrap("directory", err)
	}
	suspended, err := s.ParseSuspended(res[1])
	if err != nil {
		return nil, err
	}
	if newest {
		return s.idsOf(ctx, members, suspended)
	}
	out := make([]int64, 0, len(members))
	for _, m := range members {
		if uid, err := strconv.ParseInt(m, 10, 64); err == nil && !suspended[uid] {
			out = append(out, uid)
		}
	}
	return out, nil
}

// idsOf returns the ids of the users called names, in their order, but
// for those gone or suspended.
func (s *Store) idsOf(ctx context.Context, names []string, suspended map[int64]bool) ([]int64, error) {
	uids, err := s.namedIDs(ctx, names)
	if err != nil {
		return nil, err
	}
	out := make([]int64, 0, len(uids))
	for _, uid := range uids {
		if uid != 0 && !suspended[uid] {
			out = append(out, uid)
		}
	}
	return out, nil
}
