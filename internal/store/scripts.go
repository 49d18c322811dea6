package store

import (
	"context"
	"crypto/sha1"
	_ "embed" // scripts.lua
	"encoding/hex"
	"slices"
	"strconv"
	"strings"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis/internal/redisconn"
)

// script is a Lua script that can also be sent inside a pipeline as
// EVALSHA. Each script touches only the keys it is given, all of one slot.
type script struct {
	lua *rueidis.Lua
	src string
	sha string
}

// luaSource holds every script, each in a section of scripts.lua that
// begins with a line "--- <name>".
//
//go:embed scripts.lua
var luaSource string

// newScript returns the script of the section name of scripts.lua.
func newScript(name string) *script {
	_, rest, ok := strings.Cut(luaSource, "\n--- "+name+"\n")
	if !ok {
		panic("store: no script " + name + " in scripts.lua") // embedded at build time: only a typo gets here
	}
	src, _, _ := strings.Cut(rest, "\n--- ")
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
var allScripts = []*script{pushIDs, mergeIDs, pageIDs, claimName, unclaimName, upgradeLegacy, createIfAbsent, setIfExists}

// loadScripts loads every pipelined script on every node. Servers forget
// scripts when they restart, so this runs again on NOSCRIPT.
func (s *Store) loadScripts(ctx context.Context) error {
	for _, node := range s.c.Nodes() {
		cmds := make(rueidis.Commands, len(allScripts))
		for i, sc := range allScripts {
			cmds[i] = node.B().ScriptLoad().Script(sc.src).Build()
		}
		if err := redisconn.FirstErr(node.DoMulti(ctx, cmds...)); err != nil {
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

// pushIDs inserts post ids (ARGV[2…], ascending and distinct) into a
// timeline list kept in descending id order, without duplicates, capped
// at ARGV[1] entries, and returns the list's length. The usual case, ids
// newer than everything, is one push. An older id (a late or parallel
// delivery) is put in its place, found by galloping from the head and
// then bisecting with LINDEX, so it costs a few reads however deep it
// goes. With more than two late ids, the entries above the oldest are
// read once, merged with the ids and put back, so a follower's share of
// a backlog costs one pass over the top of the list rather than a
// search per id. Delivering twice is harmless. Build calls with
// pushIDsCmd.
var pushIDs = newScript("push_ids")

// pushIDsCmd returns the pushIDs call that inserts ids (any order,
// repeats allowed) into the timeline list key capped at capacity.
func pushIDsCmd(c rueidis.Client, key string, capacity int, ids ...int64) rueidis.Completed {
	return pushIDs.cmd(c, []string{key}, pushIDsArgs(capacity, ids)...)
}

// pushIDsArgs returns the arguments of pushIDs: capacity, then ids
// sorted and without repeats.
func pushIDsArgs(capacity int, ids []int64) []string {
	sorted := slices.Clone(ids)
	slices.Sort(sorted)
	sorted = slices.Compact(sorted)
	args := make([]string, 0, len(sorted)+1)
	args = append(args, strconv.Itoa(capacity))
	for _, p := range sorted {
		args = append(args, id(p))
	}
	return args
}

// mergeIDs merges post ids (ARGV[3…], in descending order) into a
// timeline list, keeping it in descending order without duplicates and
// capped at ARGV[1] entries. Ids below ARGV[2] (0 for none) are dropped:
// beneath that floor the merged sources are incomplete, and a list must
// be complete down to its oldest entry. Used to backfill on follow and to
// rebuild a timeline; what the list holds is kept, so a delivery made
// while the ids were read is not lost.
var mergeIDs = newScript("merge_ids")

// pageIDs reads up to ARGV[3] ids from a timeline list in descending
// order: those older than ARGV[1] (a cursor, 0 for none) or, with ARGV[2]
// set, the ones just newer than ARGV[2]. It looks at no more than ARGV[4]
// entries, so its cost is bounded by the cap, not by the page's depth.
var pageIDs = newScript("page_ids")

// claimName atomically claims a username in both name indexes, which share
// a hash slot. It fails if the name is taken in either, case-insensitively
// in the folded index and exactly in the tutorial's users hash.
var claimName = newScript("claim_name")

// unclaimName takes back a claim of claimName, if it is still the user
// ARGV[3]'s.
var unclaimName = newScript("unclaim_name")

// upgradeLegacy replaces a plaintext password (ARGV[1], in field ARGV[3]
// of the user hash KEYS[1]) with its hash (ARGV[2], in field ARGV[4]),
// provided the plaintext has not changed since it was checked.
var upgradeLegacy = newScript("upgrade_legacy")

// createIfAbsent writes the hash KEYS[1] with the field-value pairs of
// ARGV, unless the key exists: then it writes nothing and returns 0.
var createIfAbsent = newScript("create_if_absent")

// setIfExists sets field ARGV[1] of the hash KEYS[1] to ARGV[2], unless
// the key does not exist: it never brings back a deleted record.
var setIfExists = newScript("set_if_exists")
