package kernel

import (
	"context"
	"time"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis/internal/redisconn"
)

// CachedMulti reads cmds through the client-side cache. A cached read
// is sent after CLIENT CACHING YES, which a Redis at its memory limit may
// refuse like a write; those reads are sent again uncached, so that
// pages keep working on a full Redis while writes fail.
//
// Keys this server changed a moment ago are read uncached (see Written),
// so that a server reads its own writes.
func (db *DB) CachedMulti(ctx context.Context, cmds ...rueidis.CacheableTTL) []rueidis.RedisResult {
	fresh := db.Written.Recent(func(i int) string { return cmds[i].Cmd.Commands()[1] }, len(cmds))
	if fresh != nil {
		return db.cachedAround(ctx, cmds, fresh)
	}
	for i := range cmds {
		// None of the keys read through the cache expires: the client's
		// TTL bounds a copy alone, and a miss is read with the command
		// itself instead of a MULTI/PTTL/EXEC around it.
		cmds[i].Cmd = cmds[i].Cmd.ToStaticTTL()
	}
	res := db.C.DoMultiCache(ctx, cmds...)
	var full []int
	hits := 0
	for i, r := range res {
		if r.IsCacheHit() {
			hits++
		}
		if redisconn.IsFull(r.Error()) {
			full = append(full, i)
		}
	}
	db.Metrics.CacheReads(hits, len(res)-hits)
	if len(full) == 0 {
		return res
	}
	db.invalidations.Invalidated(nil) // read untracked: no Memo may keep them
	plain := make(rueidis.Commands, len(full))
	for k, i := range full {
		plain[k] = db.Uncached(cmds[i].Cmd)
	}
	for k, r := range db.C.DoMulti(ctx, plain...) {
		res[full[k]] = r
	}
	return res
}

// cachedAround reads cmds with those marked in uncached sent as plain
// commands and the others through the cache.
func (db *DB) cachedAround(ctx context.Context, cmds []rueidis.CacheableTTL, uncached []bool) []rueidis.RedisResult {
	var plain rueidis.Commands
	var rest []rueidis.CacheableTTL
	for i, c := range cmds {
		if uncached[i] {
			plain = append(plain, db.Uncached(c.Cmd))
		} else {
			rest = append(rest, c)
		}
	}
	pres := db.C.DoMulti(ctx, plain...)
	var cres []rueidis.RedisResult
	if len(rest) > 0 {
		cres = db.CachedMulti(ctx, rest...)
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

// Cached reads one command through the client-side cache (see cachedMulti).
func (db *DB) Cached(ctx context.Context, cmd rueidis.Cacheable, ttl time.Duration) rueidis.RedisResult {
	return db.CachedMulti(ctx, rueidis.CT(cmd, ttl))[0]
}

// Uncached rebuilds a cacheable read as a plain command. Every cached
// read of this package is a single-key command whose key comes first.
func (db *DB) Uncached(cmd rueidis.Cacheable) rueidis.Completed {
	parts := cmd.Commands()
	return db.C.B().Arbitrary(parts[0]).Keys(parts[1]).Args(parts[2:]...).ReadOnly()
}
