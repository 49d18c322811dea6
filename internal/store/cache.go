package store

import (
	"context"
	"time"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis/internal/redisconn"
)

// cachedMulti reads cmds through the client-side cache. A cached read
// is sent after CLIENT CACHING YES, which a Redis at its memory limit may
// refuse like a write; those reads are sent again uncached, so that
// pages keep working on a full Redis while writes fail.
//
// Keys this server changed a moment ago are read uncached (see written),
// so that a server reads its own writes.
func (s *Store) cachedMulti(ctx context.Context, cmds ...rueidis.CacheableTTL) []rueidis.RedisResult {
	fresh := s.written.recent(func(i int) string { return cmds[i].Cmd.Commands()[1] }, len(cmds))
	if fresh != nil {
		return s.cachedAround(ctx, cmds, fresh)
	}
	for i := range cmds {
		// None of the keys read through the cache expires: the client's
		// TTL bounds a copy alone, and a miss is read with the command
		// itself instead of a MULTI/PTTL/EXEC around it.
		cmds[i].Cmd = cmds[i].Cmd.ToStaticTTL()
	}
	res := s.c.DoMultiCache(ctx, cmds...)
	var full []int
	for i, r := range res {
		s.metrics.cacheRead(r.IsCacheHit())
		if redisconn.IsFull(r.Error()) {
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

// cachedAround reads cmds with those marked in uncached sent as plain
// commands and the others through the cache.
func (s *Store) cachedAround(ctx context.Context, cmds []rueidis.CacheableTTL, uncached []bool) []rueidis.RedisResult {
	var plain rueidis.Commands
	var rest []rueidis.CacheableTTL
	for i, c := range cmds {
		if uncached[i] {
			plain = append(plain, s.uncached(c.Cmd))
		} else {
			rest = append(rest, c)
		}
	}
	pres := s.c.DoMulti(ctx, plain...)
	var cres []rueidis.RedisResult
	if len(rest) > 0 {
		cres = s.cachedMulti(ctx, rest...)
	}
	res := make([]rueidis.RedisResult, len(cmds))
	for i := range cmds {
		if uncached[i] {
			res[i], pres = pres[0], pres[1:]
		} else {
			res[i], cres = cres[0], cres[1:]
		}
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
