package posts

import (
	"context"
	"strconv"

	"github.com/redis/rueidis"
	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/store/schema"
)

// Hidden returns whose posts viewer (0: a visitor logged out) does not
// see, through the client-side cache: no round trip when warm.
func (s *Store) Hidden(ctx context.Context, viewer int64) (retwis.Hidden, error) {
	return s.ParseHidden(s.CachedMulti(ctx, s.HiddenCmds(viewer)...))
}

// HiddenCmds are the cached reads of what viewer does not see, for
// parseHidden: suspended accounts, then viewer's blocks, mutes and
// blockers, all of viewer's slot.
func (s *Store) HiddenCmds(viewer int64) []rueidis.CacheableTTL {
	b := s.C.B()
	cmds := []rueidis.CacheableTTL{s.SuspendedCmd()}
	if viewer == 0 {
		return cmds
	}
	return append(cmds,
		rueidis.CT(b.Zrange().Key(schema.Blocks(viewer)).Min("0").Max("-1").Cache(), s.Opts.CacheTTL),
		rueidis.CT(b.Zrange().Key(schema.Mutes(viewer)).Min("0").Max("-1").Cache(), s.Opts.CacheTTL),
		rueidis.CT(b.Zrange().Key(schema.BlockedBy(viewer)).Min("0").Max("-1").Cache(), s.Opts.CacheTTL))
}

// ParseHidden decodes the replies to hiddenCmds.
func (s *Store) ParseHidden(res []rueidis.RedisResult) (retwis.Hidden, error) {
	var sets [4]map[int64]bool
	for i, r := range res {
		members, err := r.AsStrSlice()
		if err != nil {
			return retwis.Hidden{}, s.Wrap("read blocks", err)
		}
		if len(members) == 0 {
			continue
		}
		sets[i] = make(map[int64]bool, len(members))
		for _, m := range members {
			if uid, err := strconv.ParseInt(m, 10, 64); err == nil {
				sets[i][uid] = true
			}
		}
	}
	return retwis.Hidden{Suspended: sets[0], Blocked: sets[1], Muted: sets[2], BlockedBy: sets[3]}, nil
}
