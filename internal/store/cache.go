package store

import (
	"context"
	"time"

	"github.com/redis/rueidis"
)

// cachedMulti reads cmds through the client-side cache. Cached reads go
// out as a small transaction (CLIENT CACHING, PTTL and the read inside
// MULTI/EXEC), which a Redis at its memory limit refuses like a write;
// those reads are sent again uncached, so that pages keep working on a
// full Redis while writes fail.
func (s *Store) cachedMulti(ctx context.Context, cmds ...rueidis.CacheableTTL) []rueidis.RedisResult {
	res := s.c.DoMultiCache(ctx, cmds...)
	var full []int
	for i, r := range res {
		s.metrics.cacheRead(r.IsCacheHit())
		if isFull(r.Error()) {
			full = append(full, i)
		}
	}
	if len(full) == 0 {
		return res
	}
	plain := make(rueidis.Commands, len(full))
	for k, i := range full {
		plain[k] = s.uncached(cmds[i].Cmd)
	}
	for k, r := range s.c.DoMulti(ctx, plain...) {
		res[full[k]] = r
	}
	return res
}

// cached reads one command through the client-side cache (see cachedMulti).
func (s *Store) cached(ctx context.Context, cmd rueidis.Cacheable, ttl time.Duration) rueidis.RedisResult {
	return s.cachedMulti(ctx, rueidis.CT(cmd, ttl))[0]
}

// uncached rebuilds a cacheable read as a plain command. Every cached
// read of this package is a single-key command whose key comes first.
func (s *Store) uncached(cmd rueidis.Cacheable) rueidis.Completed {
	parts := cmd.Commands()
	return s.c.B().Arbitrary(parts[0]).Keys(parts[1]).Args(parts[2:]...).ReadOnly()
}
