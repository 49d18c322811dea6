package upkeep

import (
	"cmp"
	"context"
	"strconv"
	"strings"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/redisconn"
	"github.com/retwis/retwis/internal/store/index"
	"github.com/retwis/retwis/internal/store/kernel"
	"github.com/retwis/retwis/internal/store/schema"
)

// reindexBudget bounds the keys one maintenance round walks, per
// backfill.
const reindexBudget = 5000

// backfill is the indexing in the background of what was written before
// an index existed: the keys matching pattern on every master, walked
// with SCAN from the cursor kept per master in the hash state (whose
// FieldReindexSince says when the migration asked for it).
type backfill struct {
	state   string
	pattern string
	kind    string                                                          // the type of the keys: "hash", "zset"
	what    string                                                          // what it indexes, for the log
	index   func(s keeper, ctx context.Context, keys []string) (int, error) // returns how many needed it
}

// backfills are the indexes that maintenance fills in for older data.
var backfills = []backfill{
	{schema.ReindexState, schema.PostKeys, "hash", "older posts", (keeper).reindexPosts},
	{schema.PeopleReindexState, schema.UserKeys, "hash", "users for the people search", (keeper).reindexUsers},
	{schema.GraphReindexState, schema.FollowingKeys, "zset", "follows for the graph", (keeper).reindexFollows},
	{schema.ExploreReindexState, schema.UserKeys, "hash", "users for the directory", (keeper).reindexAccounts},
	{schema.AuthorsReindexState, schema.PostKeys, "hash", "older posts' authors", (keeper).nameOlderPosts},
	{schema.ConversationsReindexState, schema.DirectKeys, "zset", "direct posts for the conversations", (keeper).reindexConversations},
	{schema.ActivityReindexState, schema.UserKeys, "hash", "users by their newest post", (keeper).reindexActivity},
}

// reindexOlder runs every backfill: as delivery jobs index new posts,
// sign-ups new users and follows themselves, it indexes those written
// before version 4 (by tag and mention), version 5 (in the people
// search), version 6 (the follows in the graph), version 7 (the
// users in the directory), version 8 (their authors' usernames in
// the posts, the direct posts in their conversations) and version 9
// (the users by their newest post). See backfill.
// It returns how many keys it indexed.
func (s keeper) reindexOlder(ctx context.Context) (int, error) {
	total := 0
	for _, bf := range backfills {
		n, err := s.runBackfill(ctx, bf)
		if total += n; err != nil {
			return total, err
		}
	}
	return total, nil
}

// runBackfill walks bf's keys, reindexBudget a round at most, from the
// cursors its state keeps, so that it resumes where it stopped, and logs
// its progress, and its end once (which scripts/bench-php.sh waits for).
// A key indexed already is left alone. Maintenance runs it under its
// lock, one server at a time, so that counts (the trends and the tag
// completion) are counted once.
func (s keeper) runBackfill(ctx context.Context, bf backfill) (int, error) {
	state, err := s.C.Do(ctx, s.C.B().Hgetall().Key(bf.state).Build()).AsStrMap()
	if err != nil || len(state) == 0 {
		return 0, s.Wrap("reindex: state", err) // nothing to do: a database born with the index
	}
	finished := len(state) > 1 // walked to the end on every master before this round
	for field, cursor := range state {
		finished = finished && (field == schema.FieldReindexSince || cursor == kernel.WalkDone)
	}
	indexed, walked := 0, 0
	done, err := s.Walk(ctx, bf.state, bf.pattern, bf.kind, reindexBudget, func(keys []string) error {
		n, err := bf.index(s, ctx, keys)
		indexed, walked = indexed+n, walked+len(keys)
		return err
	})
	switch {
	case err != nil:
		return indexed, err
	case !done:
		s.Log.Info("indexing "+bf.what, "indexed", indexed, "walked", walked)
	case !finished: // once, even when no key needed it (none matched)
		s.Log.Info(bf.what+" all indexed", "indexed", indexed, "walked", walked)
	}
	return indexed, nil
}

// reindexUsers enters the users of keys in the people search, and
// returns how many. Entering one again changes nothing.
func (s keeper) reindexUsers(ctx context.Context, keys []string) (int, error) {
	uids, res := s.ReadEach(ctx, keys, schema.UserOf, func(k string) rueidis.Completed {
		return s.C.B().Hmget().Key(k).Field(schema.FieldUsername, schema.FieldDisplayName).Build()
	})
	var writes [][]string
	n := 0
	for i, r := range res {
		vals, err := r.ToArray()
		if err != nil {
			return 0, s.Wrap("reindex: read users", err)
		}
		if len(vals) != 2 {
			return 0, s.Wrap("reindex: read users", kernel.ErrShape)
		}
		name, _ := vals[0].ToString()
		display, _ := vals[1].ToString()
		if name == "" {
			continue // a half-created user
		}
		writes = append(writes, index.PeopleWrites(uids[i], retwis.SearchTerms(name, display), nil)...)
		n++
	}
	err := redisconn.FirstErr(s.Pipeline(ctx, func() rueidis.Commands { return index.Commands(s.C, writes) }))
	return n, s.Wrap("reindex: write", err)
}

// reindexAccounts enters the users of keys in the directory, with the
// time of their sign-up from users_by_time (the user hashes of version
// 7 keep it), and returns how many.
func (s keeper) reindexAccounts(ctx context.Context, keys []string) (int, error) {
	uids, res := s.ReadEach(ctx, keys, schema.UserOf, func(k string) rueidis.Completed {
		return s.C.B().Hmget().Key(k).Field(schema.FieldUsername, schema.FieldJoined).Build()
	})
	var found []int64
	var names []string
	for i, r := range res {
		vals, err := r.ToArray()
		if err != nil || len(vals) != 2 {
			return 0, s.Wrap("reindex: read users", cmp.Or(err, kernel.ErrShape))
		}
		name, _ := vals[0].ToString()
		if _, err := vals[1].ToString(); name != "" && rueidis.IsRedisNil(err) {
			found, names = append(found, uids[i]), append(names, name)
		}
	}
	if err := s.recordJoined(ctx, found, names); err != nil {
		return 0, err
	}
	return len(uids), s.RefreshDirectory(ctx, uids...)
}

// reindexActivity enters the users of keys in the order of their newest
// posts, with their entries in the directory (RefreshDirectory writes
// both), and returns how many it walked.
func (s keeper) reindexActivity(ctx context.Context, keys []string) (int, error) {
	uids := make([]int64, 0, len(keys))
	for _, k := range keys {
		if uid, ok := schema.UserOf(k); ok {
			uids = append(uids, uid)
		}
	}
	return len(uids), s.RefreshDirectory(ctx, uids...)
}

// recordJoined copies into the user hashes of uids, called names, the
// time of their sign-up from users_by_time.
func (s keeper) recordJoined(ctx context.Context, uids []int64, names []string) error {
	if len(uids) == 0 {
		return nil
	}
	b := s.C.B()
	scores, err := s.C.Do(ctx, b.Zmscore().Key(schema.UsersByTime).Member(names...).Build()).ToArray()
	if err != nil {
		return s.Wrap("reindex: sign-up times", err)
	}
	var cmds rueidis.Commands
	for i, sc := range scores {
		if t, err := sc.AsFloat64(); err == nil {
			cmds = append(cmds, kernel.SetIfExists.Cmd(s.C, []string{schema.User(uids[i])}, schema.FieldJoined, strconv.FormatInt(int64(t), 10)))
		}
	}
	if len(cmds) == 0 {
		return nil
	}
	return s.Wrap("reindex: sign-up times", redisconn.FirstErr(s.Pipeline(ctx, func() rueidis.Commands { return cmds })))
}

// reindexPosts indexes those of the posts keys that need it, and returns
// how many.
func (s keeper) reindexPosts(ctx context.Context, keys []string) (int, error) {
	b := s.C.B()
	cmds := make(rueidis.Commands, 0, len(keys))
	var pids []int64
	for _, k := range keys {
		pid, ok := schema.PostOf(k)
		if !ok {
			continue // not a post of retwis's
		}
		pids = append(pids, pid)
		cmds = append(cmds, b.Hmget().Key(k).Field(schema.FieldUserID, schema.FieldTime, schema.FieldBody,
			schema.FieldTags, schema.FieldMentions).Build())
	}
	if len(cmds) == 0 {
		return 0, nil
	}
	var writes rueidis.Commands
	n := 0
	for i, r := range s.C.DoMulti(ctx, cmds...) {
		vals, err := r.ToArray()
		if err != nil {
			return 0, s.Wrap("reindex: read posts", err)
		}
		str := make([]string, len(vals))
		for k, v := range vals {
			str[k], _ = v.ToString()
		}
		author, err := strconv.ParseInt(str[0], 10, 64)
		if err != nil || str[3] != "" || str[4] != "" {
			continue // damaged, or indexed already
		}
		ts, _ := strconv.ParseInt(str[1], 10, 64)
		_, conv, err := s.Converse(ctx, str[2], 0)
		if err != nil {
			return 0, err
		}
		if len(conv.Tags) == 0 && len(conv.Mentions) == 0 {
			continue
		}
		p := index.Post{ID: pids[i], Author: author, Time: ts, Conv: conv}
		writes = append(writes, kernel.SetIfExists.Cmd(s.C, []string{schema.Post(p.ID)}, conv.Fields()...))
		writes = append(writes, index.Cmds(s.C, p)...)
		n++
	}
	if n == 0 {
		return 0, nil
	}
	err := redisconn.FirstErr(s.Pipeline(ctx, func() rueidis.Commands { return writes }))
	return n, s.Wrap("reindex: write", err)
}

// nameOlderPosts copies into those of the posts keys written before
// posts kept it their author's username (the original's, retwis's
// before version 8), so that a page shows them without reading their
// authors' user hashes, and returns how many. Usernames never change.
func (s keeper) nameOlderPosts(ctx context.Context, keys []string) (int, error) {
	pids, res := s.ReadEach(ctx, keys, schema.PostOf, func(k string) rueidis.Completed {
		return s.C.B().Hmget().Key(k).Field(schema.FieldUserID, schema.FieldAuthor).Build()
	})
	var unnamed, authors []int64
	for i, r := range res {
		vals, err := r.ToArray()
		if err != nil || len(vals) != 2 {
			return 0, s.Wrap("reindex: read posts", cmp.Or(err, kernel.ErrShape))
		}
		id, _ := vals[0].ToString()
		author, err := strconv.ParseInt(id, 10, 64)
		if _, named := vals[1].ToString(); named == nil || err != nil {
			continue // named already, or damaged (retwis check's)
		}
		unnamed, authors = append(unnamed, pids[i]), append(authors, author)
	}
	if len(unnamed) == 0 {
		return 0, nil
	}
	names, err := s.Usernames(ctx, authors)
	if err != nil {
		return 0, err // an author's node is failing over: the same keys next round
	}
	var writes rueidis.Commands
	for i, pid := range unnamed {
		if name := names[authors[i]]; name != "" { // no author: a post its deletion will take
			writes = append(writes, kernel.SetIfExists.Cmd(s.C, []string{schema.Post(pid)}, schema.FieldAuthor, name))
		}
	}
	err = redisconn.FirstErr(s.Pipeline(ctx, func() rueidis.Commands { return writes }))
	return len(writes), s.Wrap("reindex: name posts", err)
}

// Bounds of the completion index's purge.
const (
	// completionKept is how many entries a shard of the completion index
	// holds before maintenance starts counting entries down.
	completionKept = 10_000
	// completionPurged is how many entries of a shard over the bound a
	// maintenance round counts down.
	completionPurged = 16
)

// purgeCompletion counts down a few random entries of every shard of the
// completion index that holds more than completionKept, removing those
// that reach zero: the seed's streaming purge, so that in the long run
// the index holds the tags in use, and the rare ones fade.
func (s keeper) purgeCompletion(ctx context.Context) error {
	b := s.C.B()
	cmds := make(rueidis.Commands, schema.CompletionShards)
	for n := range cmds {
		cmds[n] = b.Zcard().Key(schema.Completion(n)).Build()
	}
	var full []int
	for n, r := range s.C.DoMulti(ctx, cmds...) {
		size, err := r.AsInt64()
		if err != nil {
			return s.Wrap("purge completion", err)
		}
		if size > completionKept {
			full = append(full, n)
		}
	}
	if len(full) == 0 {
		return nil
	}
	cmds = make(rueidis.Commands, len(full))
	for i, n := range full {
		cmds[i] = b.Zrandmember().Key(schema.Completion(n)).Count(completionPurged).Build()
	}
	var writes rueidis.Commands
	for i, r := range s.C.DoMulti(ctx, cmds...) {
		n := full[i]
		members, err := r.AsStrSlice()
		if err != nil {
			return s.Wrap("purge completion", err)
		}
		for _, m := range members {
			f, rest, _ := strings.Cut(m, ":")
			_, written, _ := strings.Cut(rest, ":")
			if retwis.FoldTag(written) == f {
				writes = append(writes, kernel.CompleteAdd.Cmd(s.C, []string{schema.Completion(n)}, f, written, "-1"))
			}
		}
	}
	if len(writes) == 0 {
		return nil
	}
	return s.Wrap("purge completion", redisconn.FirstErr(s.Pipeline(ctx, func() rueidis.Commands { return writes })))
}

// reindexFollows enters the follows of the sets of users followed keys
// in the graph, and returns how many sets. Entering one again changes
// nothing.
func (s keeper) reindexFollows(ctx context.Context, keys []string) (int, error) {
	uids, res := s.ReadEach(ctx, keys, schema.FollowingOf, func(k string) rueidis.Completed {
		return s.C.B().Zrange().Key(k).Min("0").Max("-1").Build()
	})
	var writes [][]string
	for i, r := range res {
		followed, err := r.AsIntSlice()
		if err != nil {
			return 0, s.Wrap("reindex: read follows", err)
		}
		for _, f := range followed {
			writes = append(writes, index.EdgeWrites("ZADD", uids[i], schema.RelFollows, f)...)
		}
	}
	err := redisconn.FirstErr(s.Pipeline(ctx, func() rueidis.Commands { return index.Commands(s.C, writes) }))
	return len(uids), s.Wrap("reindex: write", err)
}
