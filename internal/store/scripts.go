package store

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"strings"

	"github.com/redis/rueidis"
)

// script is a Lua script that can also be sent inside a pipeline as
// EVALSHA. Each script touches only the keys it is given, all of one slot.
type script struct {
	lua *rueidis.Lua
	src string
	sha string
}

func newScript(src string) *script {
	sum := sha1.Sum([]byte(src))
	return &script{lua: rueidis.NewLuaScript(src), src: src, sha: hex.EncodeToString(sum[:])}
}

// exec runs the script once (EVALSHA, falling back to EVAL).
func (sc *script) exec(ctx context.Context, c rueidis.Client, keys []string, args ...string) rueidis.RedisResult {
	return sc.lua.Exec(ctx, c, keys, args)
}

// cmd returns an EVALSHA of the script for a pipeline; run the pipeline
// with Store.pipeline, which loads the scripts when a server lacks them.
func (sc *script) cmd(c rueidis.Client, keys []string, args ...string) rueidis.Completed {
	return c.B().Evalsha().Sha1(sc.sha).Numkeys(int64(len(keys))).Key(keys...).Arg(args...).Build()
}

// allScripts are loaded on every node by loadScripts, so that any of
// them can be sent in a pipeline.
var allScripts = []*script{pushID, mergeIDs, pageIDs, claimName, unclaimName, upgradeLegacy, createIfAbsent}

// loadScripts loads every pipelined script on every node. Servers forget
// scripts when they restart, so this runs again on NOSCRIPT.
func (s *Store) loadScripts(ctx context.Context) error {
	for _, node := range s.c.Nodes() {
		cmds := make(rueidis.Commands, len(allScripts))
		for i, sc := range allScripts {
			cmds[i] = node.B().ScriptLoad().Script(sc.src).Build()
		}
		if err := firstErr(node.DoMulti(ctx, cmds...)); err != nil {
			return s.wrap("load scripts", err)
		}
	}
	return nil
}

// pipeline sends the commands build returns as one pipeline. If a server
// answers NOSCRIPT (it restarted and lost its script cache), it loads the
// scripts and sends a fresh pipeline once more, so every command sent this
// way must be safe to repeat. (Commands cannot be reused once sent, hence
// build.)
func (s *Store) pipeline(ctx context.Context, build func() rueidis.Commands) []rueidis.RedisResult {
	res := s.c.DoMulti(ctx, build()...)
	for _, r := range res {
		if err := r.Error(); err != nil && strings.HasPrefix(err.Error(), "NOSCRIPT") {
			if err := s.loadScripts(ctx); err != nil {
				for i := range res { // one result per command, as callers index them
					res[i] = rueidis.NewErrorResult(err)
				}
				return res
			}
			return s.c.DoMulti(ctx, build()...)
		}
	}
	return res
}

// pushID inserts one post id into a timeline list kept in descending id
// order, without duplicates, capped at ARGV[2] entries. The usual case, a
// new post newer than everything, is a push; an older one (a late or
// parallel delivery) is put in its place, found by scanning from the head
// in growing chunks, since late posts are nearly always near the top.
// Delivering twice is harmless.
var pushID = newScript(`
local id, cap = tonumber(ARGV[1]), tonumber(ARGV[2])
local head = redis.call('LINDEX', KEYS[1], 0)
if not head or tonumber(head) < id then
  redis.call('LPUSH', KEYS[1], ARGV[1])
  redis.call('LTRIM', KEYS[1], 0, cap - 1)
  return 1
end
local start, size = 0, 16
while start < cap do
  local stop = math.min(start + size, cap) - 1
  local ids = redis.call('LRANGE', KEYS[1], start, stop)
  for _, v in ipairs(ids) do
    local n = tonumber(v)
    if n == id then return 0 end
    if n < id then
      redis.call('LINSERT', KEYS[1], 'BEFORE', v, ARGV[1])
      redis.call('LTRIM', KEYS[1], 0, cap - 1)
      return 1
    end
  end
  if #ids < stop - start + 1 then
    if start + #ids < cap then
      redis.call('RPUSH', KEYS[1], ARGV[1])
      return 1
    end
    return 0
  end
  start, size = stop + 1, size * 4
end
return 0`)

// mergeIDs merges post ids (ARGV[3…], in descending order) into a
// timeline list, keeping it in descending order without duplicates and
// capped at ARGV[1] entries. Ids below ARGV[2] (0 for none) are dropped:
// beneath that floor the merged sources are incomplete, and a list must
// be complete down to its oldest entry. Used to backfill on follow and to
// rebuild a timeline; what the list holds is kept, so a delivery made
// while the ids were read is not lost.
var mergeIDs = newScript(`
local cap, floor = tonumber(ARGV[1]), tonumber(ARGV[2])
local cur = redis.call('LRANGE', KEYS[1], 0, cap - 1)
local out, i, j = {}, 1, 3
while #out < cap and (i <= #cur or j <= #ARGV) do
  local a, b = tonumber(cur[i]), tonumber(ARGV[j])
  local v
  if b == nil or (a ~= nil and a > b) then v = cur[i]; i = i + 1
  elseif a == nil or b > a then v = ARGV[j]; j = j + 1
  else v = cur[i]; i = i + 1; j = j + 1 end
  if tonumber(v) < floor then break end
  if #out == 0 or tonumber(out[#out]) ~= tonumber(v) then out[#out + 1] = v end
end
redis.call('DEL', KEYS[1])
for k = 1, #out, 1000 do
  redis.call('RPUSH', KEYS[1], unpack(out, k, math.min(k + 999, #out)))
end
return #out`)

// pageIDs reads up to ARGV[3] ids from a timeline list in descending
// order: those older than ARGV[1] (a cursor, 0 for none) or, with ARGV[2]
// set, the ones just newer than ARGV[2]. It looks at no more than ARGV[4]
// entries, so its cost is bounded by the cap, not by the page's depth.
var pageIDs = newScript(`
local before, after, n, limit = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
if after > 0 then
  local ids = redis.call('LRANGE', KEYS[1], 0, limit - 1)
  local k = 0
  for i, v in ipairs(ids) do
    if tonumber(v) > after then k = i else break end
  end
  local out = {}
  for i = math.max(1, k - n + 1), k do out[#out + 1] = ids[i] end
  return out
end
if before > 0 then
  local pos = redis.call('LPOS', KEYS[1], ARGV[1], 'MAXLEN', limit)
  if pos then return redis.call('LRANGE', KEYS[1], pos + 1, pos + n) end
  local out = {}
  for _, v in ipairs(redis.call('LRANGE', KEYS[1], 0, limit - 1)) do
    if tonumber(v) < before then
      out[#out + 1] = v
      if #out == n then break end
    end
  end
  return out
end
return redis.call('LRANGE', KEYS[1], 0, n - 1)`)

// claimName atomically claims a username in both name indexes, which share
// a hash slot. It fails if the name is taken in either, case-insensitively
// in the folded index and exactly in the tutorial's users hash.
var claimName = newScript(`
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 or redis.call('HEXISTS', KEYS[2], ARGV[2]) == 1 then
  return 0
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
redis.call('HSET', KEYS[2], ARGV[2], ARGV[3])
return 1`)

// unclaimName takes back a claim of claimName, if it is still the user
// ARGV[3]'s.
var unclaimName = newScript(`
if redis.call('HGET', KEYS[1], ARGV[1]) == ARGV[3] then redis.call('HDEL', KEYS[1], ARGV[1]) end
if redis.call('HGET', KEYS[2], ARGV[2]) == ARGV[3] then redis.call('HDEL', KEYS[2], ARGV[2]) end
return 1`)

// upgradeLegacy replaces a plaintext password with its hash, provided the
// plaintext has not changed since it was checked.
var upgradeLegacy = newScript(`
if redis.call('HGET', KEYS[1], 'password') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'password_hash', ARGV[2])
redis.call('HDEL', KEYS[1], 'password')
return 1`)

// createIfAbsent writes the hash KEYS[1] with the field-value pairs of
// ARGV, unless the key exists: then it writes nothing and returns 0.
var createIfAbsent = newScript(`
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV))
return 1`)
