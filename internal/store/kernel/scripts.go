package kernel

import (
	"context"
	"crypto/sha1"
	_ "embed" // scripts.lua
	"encoding/hex"
	"errors"
	"slices"
	"strconv"
	"strings"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis/internal/redisconn"
	"github.com/retwis/retwis/internal/store/schema"
)

// script is a Lua script that can also be sent inside a pipeline as
// EVALSHA. Each script touches only the keys it is given, all of one slot.
type Script struct {
	lua *rueidis.Lua
	src string
	sha string
}

// luaSource holds every script, each in a section of scripts.lua that
// begins with a line "--- <name>", or "--- <name> lib <lib>" for a script
// that uses the helpers of the section "--- lib <lib>".
//
//go:embed scripts.lua
var luaSource string

// newScript returns the script of the section name of scripts.lua,
// after the helpers it names.
func newScript(name string) *Script {
	var src string
	for header, body := range luaSections() {
		script, lib, hasLib := strings.Cut(header, " lib ")
		if script != name {
			continue
		}
		if hasLib {
			helpers, ok := luaSections()["lib "+lib]
			if !ok {
				panic("store: no helpers " + lib + " in scripts.lua") // embedded at build time: only a typo gets here
			}
			body = helpers + body
		}
		src = body
	}
	if src == "" {
		panic("store: no script " + name + " in scripts.lua")
	}
	sum := sha1.Sum([]byte(src))
	return &Script{lua: rueidis.NewLuaScript(src), src: src, sha: hex.EncodeToString(sum[:])}
}

// luaSections returns the sections of scripts.lua by their header (what
// follows "--- ").
func luaSections() map[string]string {
	sections := map[string]string{}
	parts := strings.Split(luaSource, "\n--- ")
	for _, part := range parts[1:] {
		header, body, _ := strings.Cut(part, "\n")
		sections[header] = body
	}
	return sections
}

// exec runs the script once (EVALSHA, falling back to EVAL).
func (sc *Script) Exec(ctx context.Context, c rueidis.Client, keys []string, args ...string) rueidis.RedisResult {
	return sc.lua.Exec(ctx, c, keys, args)
}

// cmd returns an EVALSHA of the script for a pipeline; run the pipeline
// with DB.Pipeline, which loads the scripts when a server lacks them.
func (sc *Script) Cmd(c rueidis.Client, keys []string, args ...string) rueidis.Completed {
	return c.B().Evalsha().Sha1(sc.sha).Numkeys(int64(len(keys))).Key(keys...).Arg(args...).Build()
}

// allScripts are loaded on every node by loadScripts, so that any of
// them can be sent in a pipeline.
var allScripts = []*Script{PushIDs, FixIDs, MergeIDs, PageIDs, DropIDs, TrendAdd, CompleteAdd, ClaimName, UnclaimName, UpgradeLegacy,
	CreateIfAbsent, SetIfExists, BeginDeletion, EditPost, UpdateFields, MarkSync, NotifyOnce, MarkAdd, PushBoost, DropMark,
	DropConversationPost, MediaUpdate, MediaDrop}

// LoadScripts loads every pipelined script on every node. Servers forget
// scripts when they restart, so this runs again on NOSCRIPT.
func (db *DB) LoadScripts(ctx context.Context) error {
	for _, node := range db.C.Nodes() {
		cmds := make(rueidis.Commands, len(allScripts))
		for i, sc := range allScripts {
			cmds[i] = node.B().ScriptLoad().Script(sc.src).Build()
		}
		if err := redisconn.FirstErr(node.DoMulti(ctx, cmds...)); err != nil {
			return db.Wrap("load scripts", err)
		}
	}
	return nil
}

// Pipeline sends the commands build returns as one pipeline. If a server
// answers NOSCRIPT (it restarted and lost its script cache), it loads the
// scripts and sends a fresh pipeline once more, so every command sent this
// way must be safe to repeat. (Commands cannot be reused once sent, hence
// build.)
func (db *DB) Pipeline(ctx context.Context, build func() rueidis.Commands) []rueidis.RedisResult {
	res := db.C.DoMulti(ctx, build()...)
	for _, r := range res {
		if err := r.Error(); err != nil && strings.HasPrefix(err.Error(), "NOSCRIPT") {
			if err := db.LoadScripts(ctx); err != nil {
				for i := range res { // one result per command, as callers index them
					res[i] = rueidis.NewErrorResult(err)
				}
				return res
			}
			return db.C.DoMulti(ctx, build()...)
		}
	}
	return res
}

// ErrShape is a reply of an unexpected shape.
var ErrShape = errors.New("store: a reply of an unexpected shape")

// ErrScriptReply is a script's reply of an unexpected shape.
var ErrScriptReply = errors.New("store: a script replied in an unexpected shape")

// PushIDs inserts post ids into a timeline, kept in descending id order
// without repeats, and returns its list's length. The usual case, ids
// newer than everything, is one push. An older id (a late or parallel
// delivery) is put in its place, found by galloping from the head and
// then bisecting with LINDEX, so it costs a few reads however deep it
// goes; with more than two late ids, the entries above the oldest are
// read once, merged with the ids and put back, so a follower's share of
// a backlog costs one pass over the top of the list rather than a
// search per id. An id older than the list's tail goes to the archive's
// chunk that covers it. Delivering twice is harmless. Build calls with
// PushHomeCmd and pushGlobalCmd.
var PushIDs = newScript("push_ids")

// PushHomeCmd returns the PushIDs call that inserts ids (any order,
// repeats allowed) into uid's home timeline, archiving what passes
// Options.HomeCap.
func (db *DB) PushHomeCmd(uid int64, ids ...int64) rueidis.Completed {
	return PushIDs.Cmd(db.C, []string{schema.Home(uid), schema.Archive(uid)},
		PushIDsArgs(db.Opts.HomeCap, db.Opts.ArchiveChunk, schema.ArchivePrefix(uid), 0, ids)...)
}

// DeliverCmd is pushHomeCmd for a delivery: it does nothing, and replies
// -1, if uid was last seen before horizon (unix time): fanout skips users
// away longer than Options.InactiveAfter, whose timeline is rebuilt when
// they return. The time is read in the script, from uid's user hash (in
// the same slot), so that skipping costs no round trip of its own.
func (db *DB) DeliverCmd(uid, horizon int64, ids ...int64) rueidis.Completed {
	return PushIDs.Cmd(db.C, []string{schema.Home(uid), schema.Archive(uid), schema.User(uid)},
		PushIDsArgs(db.Opts.HomeCap, db.Opts.ArchiveChunk, schema.ArchivePrefix(uid), horizon, ids)...)
}

// pushGlobalCmd returns the PushIDs call that inserts ids into the
// global timeline, which keeps its newest TimelineCap entries.
func PushGlobalCmd(c rueidis.Client, ids ...int64) rueidis.Completed {
	return PushIDs.Cmd(c, []string{schema.Timeline}, PushIDsArgs(schema.TimelineCap, 0, "", 0, ids)...)
}

// pushIDsArgs returns the arguments of PushIDs: capacity, chunk, the
// prefix of chunk keys, the activity horizon and the field it is checked
// against, then ids sorted and without repeats.
func PushIDsArgs(capacity, chunk int, prefix string, horizon int64, ids []int64) []string {
	sorted := slices.Clone(ids)
	slices.Sort(sorted)
	sorted = slices.Compact(sorted)
	args := make([]string, 0, len(sorted)+5)
	args = append(args, strconv.Itoa(capacity), strconv.Itoa(chunk), prefix, strconv.FormatInt(horizon, 10), schema.FieldSeen)
	for _, p := range sorted {
		args = append(args, ID(p))
	}
	return args
}

// MergeIDs merges post ids (ARGV[4…], in descending order) into a home
// timeline, keeping it in descending order without repeats, and moves
// what passes its capacity to the archive. Ids older than the list's
// tail are left out once the archive holds entries: they predate what
// the timeline holds. Used to backfill on follow and to rebuild a
// timeline; what the list holds is kept, so a delivery made while the
// ids were read is not lost.
var MergeIDs = newScript("merge_ids")

// PageIDs reads a page of up to n ids, newest first, from a timeline:
// those older than a cursor, those newer than another, or the newest,
// going on from the list into the archive (when it is given one), and
// reports how many of them came from the archive. Every step is a
// bisection or a range of one list, so a page costs the same at any
// depth.
var PageIDs = newScript("page_ids")

// DropIDs takes ids out of a list in one pass (what an LREM of each
// would do): the posts of an author unfollowed or deleted off a home
// timeline.
var DropIDs = newScript("drop_ids")

// TrimArchive drops the oldest chunks of a home timeline's archive past
// a number kept, a bounded number a call (see TrimHistory).
var TrimArchive = newScript("trim_archive")

// TrimHistory drops the oldest chunks of uid's home timeline archive
// past those Options.HomeHistory keeps (HistoryChunks), at most most of
// them, so that a call blocks Redis for a bounded time, and returns how
// many chunks and post ids went. The entries dropped are the oldest of
// the timeline: its pages end with what is left.
func (db *DB) TrimHistory(ctx context.Context, uid int64, most int) (chunks, ids int64, err error) {
	if db.Opts.HomeHistory <= 0 {
		return 0, 0, nil
	}
	res, err := TrimArchive.Exec(ctx, db.C, []string{schema.Archive(uid)},
		schema.ArchivePrefix(uid), strconv.Itoa(db.HistoryChunks()), strconv.Itoa(most)).AsIntSlice()
	switch {
	case err != nil:
		return 0, 0, db.Wrap("trim a home timeline's history", err)
	case len(res) != 2:
		return 0, 0, db.Wrap("trim a home timeline's history", ErrScriptReply)
	}
	return res[0], res[1], nil
}

// HistoryChunks is how many chunks of its archive a home timeline keeps
// so as to hold Options.HomeHistory post ids with its list (at least
// HomeCap): the fewest chunks that, full, make up the rest.
func (db *DB) HistoryChunks() int {
	rest := db.Opts.HomeHistory - db.Opts.HomeCap
	return max(0, (rest+db.Opts.ArchiveChunk-1)/db.Opts.ArchiveChunk)
}

// TrendAdd adds a post's weight to a tag's trend score, or takes it
// back (see trendCmd).
var TrendAdd = newScript("trend_add")

// CompleteAdd changes the count of a tag in the completion index (see
// completeCmd).
var CompleteAdd = newScript("complete_add")

// ClaimName atomically claims a username in both name indexes, which share
// a hash slot. It fails if the name is taken in either, case-insensitively
// in the folded index and exactly in the tutorial's users hash, or if it
// is reserved, its account deleted a while ago (the reservation is in the
// same slot).
var ClaimName = newScript("claim_name")

// UnclaimName takes back a claim of ClaimName, if it is still the user
// ARGV[3]'s; for a deleted account, it reserves the name at once.
var UnclaimName = newScript("unclaim_name")

// BeginDeletion marks an account as being deleted and ends its access,
// at once, unless its deletion is under way already (see store.EndAccess).
var BeginDeletion = newScript("begin_deletion")

// HoldLease takes a free lease or extends the caller's; DropLease frees
// the caller'db.
var (
	HoldLease = newScript("hold_lease")
	DropLease = newScript("drop_lease")
)

// UpgradeLegacy replaces a plaintext password (ARGV[1], in field ARGV[3]
// of the user hash KEYS[1]) with its hash (ARGV[2], in field ARGV[4]),
// provided the plaintext has not changed since it was checked.
var UpgradeLegacy = newScript("upgrade_legacy")

// CreateIfAbsent writes the hash KEYS[1] with the field-value pairs of
// ARGV, unless the key exists: then it writes nothing and returns 0.
var CreateIfAbsent = newScript("create_if_absent")

// SetIfExists sets the field-value pairs of ARGV in the hash KEYS[1],
// unless the key does not exist: it never brings back a deleted record.
var SetIfExists = newScript("set_if_exists")

// RankPage reads a page of a sorted set next to one of its members
// (follow lists, by the rank of the cursor's member).
var RankPage = newScript("rank_page")

// UpdateFields sets or, for an empty value, removes the fields of the
// hash KEYS[1] in ARGV, unless the hash does not exist (it returns 0).
var UpdateFields = newScript("update_fields")

// MediaUpdate merges fields into a user's media record (and its
// attachment's), adding to the count of their bytes within a quota; it
// never brings back a record that is gone.
var MediaUpdate = newScript("media_update")

// MediaDrop removes a user's media record and takes its bytes off their
// count.
var MediaDrop = newScript("media_drop")

// EditPost writes the fields of an edit of the post hash KEYS[1], unless
// it is gone (0) or was edited since it was read (-1): two edits at once
// lose no version.
var EditPost = newScript("edit_post")

// EndSessions ends every session of a user but one (or none), and
// writes fields of the user hash at the same time: a password changes
// in the same instant as the other sessions end.
var EndSessions = newScript("end_sessions")

// LegacySeen records, the first time this version sees it used, the
// secret a user had before sessions per device, so that it expires as
// sessions do.
var LegacySeen = newScript("legacy_seen")

// TouchSession records a session's use, unless it ended meanwhile.
var TouchSession = newScript("touch_session")

// RateTake runs one action of a subject through its rate limit (GCRA).
var RateTake = newScript("rate_take")

// MarkSync brings the set of who marked a post (favourited or boosted
// it) in line with one user's mark, and the post's count with the set.
// Build calls with MarkSyncCmd.
var MarkSync = newScript("mark_sync")

// MarkSyncCmd returns the MarkSync call that brings who, the set of who
// marked a post, and field of counts, the post's counts, in line with
// user uid's mark made at unix ms at (0: uid has none), in the post's
// slot. It replies {1 if uid was added now (else 0), the count}.
func MarkSyncCmd(c rueidis.Client, who, counts string, uid, at int64, field string) rueidis.Completed {
	mark := ""
	if at > 0 {
		mark = strconv.FormatInt(at, 10)
	}
	return MarkSync.Cmd(c, []string{who, counts}, ID(uid), mark, field)
}

// MarkAdd adds a post to a user's marks (favourites, bookmarks, pins),
// scored by the time, each after the one before.
var MarkAdd = newScript("mark_add")

// NotifyOnce gives a user a notification unless they have it already
// or blocked or muted its actor.
var NotifyOnce = newScript("notify_once")

// AddCapped adds a member to a sorted set of a bounded size, scored by
// when, each after the one before, unless it is in already (0) or the
// set is full (-1).
var AddCapped = newScript("add_capped")
