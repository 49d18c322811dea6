// Package migrate brings a database written by the original Retwis, or by
// an older retwis, up to the current layout (package schema): once, on
// the first start of a new version (store.Store.Migrate runs it).
package migrate

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"strings"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/redisconn"
	"github.com/retwis/retwis/internal/store/schema"
)

// migrateBatch is how many entries one scan step reads and moves.
const migrateBatch = 1000

// migrator holds what the steps share.
type migrator struct {
	c     rueidis.Client
	nodes *redisconn.Nodes
}

// Run brings the database c reaches from layout version from (0: the
// tutorial's) to schema.Version, step by step, logging each to log. Each
// step is idempotent: a migration interrupted and run again completes.
// It does not write the version: the caller does, once it has
// succeeded.
func Run(ctx context.Context, c rueidis.Client, nodes *redisconn.Nodes, from int64, log *slog.Logger) error {
	m := &migrator{c: c, nodes: nodes}
	steps := []struct {
		before int64 // the step is for databases older than this version
		run    func(context.Context, *slog.Logger) error
	}{
		{1, m.indexUserPosts},
		{2, m.celebrateAll},
		{3, m.tagUserKeys},
		{3, m.shardNames},
		{3, m.shardAuths},
		{3, m.foldIntoUsers},
		{3, m.shardQueue},
	}
	for _, st := range steps {
		if from < st.before {
			if err := st.run(ctx, log); err != nil {
				return err
			}
		}
	}
	return nil
}

// wrap adds op to err, if any.
func wrap(op string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s: %w", op, err)
}

// scanHash walks the hash key with HSCAN and sends, for each batch, the
// commands each field and value give, in one pipeline. It returns how
// many fields it walked.
func (m *migrator) scanHash(ctx context.Context, key string, cmds func(field, value string) rueidis.Commands) (int, error) {
	return m.scanPairs(ctx, key, func(cursor uint64) rueidis.Completed {
		return m.c.B().Hscan().Key(key).Cursor(cursor).Count(migrateBatch).Build()
	}, cmds)
}

// scanSortedSet walks the sorted set key with ZSCAN, as scanHash does,
// giving each member and its score.
func (m *migrator) scanSortedSet(ctx context.Context, key string, cmds func(member, score string) rueidis.Commands) (int, error) {
	return m.scanPairs(ctx, key, func(cursor uint64) rueidis.Completed {
		return m.c.B().Zscan().Key(key).Cursor(cursor).Count(migrateBatch).Build()
	}, cmds)
}

// scanPairs walks key with the scan command that scan builds for a
// cursor, whose replies are flat lists of pairs.
func (m *migrator) scanPairs(ctx context.Context, key string, scan func(cursor uint64) rueidis.Completed,
	cmds func(a, b string) rueidis.Commands) (int, error) {
	var cursor uint64
	n := 0
	for {
		e, err := m.c.Do(ctx, scan(cursor)).AsScanEntry()
		if err != nil {
			return n, wrap("migrate: scan "+key, err)
		}
		var batch rueidis.Commands
		for i := 0; i+1 < len(e.Elements); i += 2 {
			batch = append(batch, cmds(e.Elements[i], e.Elements[i+1])...)
		}
		if err := redisconn.FirstErr(m.c.DoMulti(ctx, batch...)); err != nil {
			return n, wrap("migrate: "+key, err)
		}
		n += len(e.Elements) / 2
		if cursor = e.Cursor; cursor == 0 {
			return n, nil
		}
	}
}

// shardNames moves the name indexes into their shards: the tutorial's
// users hash (exact names), and the folded index of retwis before
// version 3. Where the original Retwis let two names differ only in
// case, the folded entry already made keeps its owner, else the first
// name seen; the other still logs in by its exact name.
func (m *migrator) shardNames(ctx context.Context, log *slog.Logger) error {
	b := m.c.B()
	if _, err := m.scanHash(ctx, schema.LegacyUsersFolded, func(folded, uid string) rueidis.Commands {
		return rueidis.Commands{b.Hsetnx().Key(schema.NamesFolded(folded)).Field(folded).Value(uid).Build()}
	}); err != nil {
		return err
	}
	n, err := m.scanHash(ctx, schema.LegacyUsers, func(name, uid string) rueidis.Commands {
		return rueidis.Commands{
			b.Hset().Key(schema.Names(name)).FieldValue().FieldValue(name, uid).Build(),
			b.Hsetnx().Key(schema.NamesFolded(name)).Field(retwis.FoldUsername(name)).Value(uid).Build(),
		}
	})
	if err != nil {
		return err
	}
	log.Info("spread the username index over shards", "users", n)
	return wrap("migrate: remove the old name indexes",
		redisconn.FirstErr(m.c.DoMulti(ctx, b.Del().Key(schema.LegacyUsers).Build(), b.Del().Key(schema.LegacyUsersFolded).Build())))
}

// shardAuths moves the auth secrets into their shards.
func (m *migrator) shardAuths(ctx context.Context, log *slog.Logger) error {
	b := m.c.B()
	n, err := m.scanHash(ctx, schema.LegacyAuths, func(secret, uid string) rueidis.Commands {
		return rueidis.Commands{b.Hset().Key(schema.Auths(secret)).FieldValue().FieldValue(secret, uid).Build()}
	})
	if err != nil {
		return err
	}
	log.Info("spread the auth secrets over shards", "secrets", n)
	return wrap("migrate: remove the old auths", m.c.Do(ctx, b.Del().Key(schema.LegacyAuths).Build()).Error())
}

// foldIntoUsers moves the last-seen times (where the user hash lacks
// one) and the celebrity flags into the user hashes.
func (m *migrator) foldIntoUsers(ctx context.Context, log *slog.Logger) error {
	b := m.c.B()
	seen, err := m.scanSortedSet(ctx, schema.LegacyLastSeen, func(member, score string) rueidis.Commands {
		uid, err1 := strconv.ParseInt(member, 10, 64)
		at, err2 := strconv.ParseFloat(score, 64)
		if err1 != nil || err2 != nil {
			return nil // not a user id: nothing to move
		}
		return rueidis.Commands{b.Hsetnx().Key(schema.User(uid)).Field(schema.FieldSeen).Value(strconv.FormatInt(int64(at), 10)).Build()}
	})
	if err != nil {
		return err
	}
	celebs, err := m.c.Do(ctx, b.Smembers().Key(schema.LegacyCelebrities).Build()).AsIntSlice()
	if err != nil {
		return wrap("migrate: celebrities", err)
	}
	cmds := make(rueidis.Commands, 0, len(celebs)+2)
	for _, c := range celebs {
		cmds = append(cmds, b.Hset().Key(schema.User(c)).FieldValue().FieldValue(schema.FieldCelebrity, "1").Build())
	}
	cmds = append(cmds, b.Del().Key(schema.LegacyLastSeen).Build(), b.Del().Key(schema.LegacyCelebrities).Build())
	if err := redisconn.FirstErr(m.c.DoMulti(ctx, cmds...)); err != nil {
		return wrap("migrate: fold into user hashes", err)
	}
	log.Info("moved last-seen times and celebrity flags into the user hashes", "seen", seen, "celebrities", len(celebs))
	return nil
}

// indexUserPosts walks every post id ever issued, in batches, and adds
// each existing post to its author's own-post index. It also marks each
// delivered at its time, as the original delivered a post while posting
// it: otherwise maintenance would take the recent ones for posts whose
// delivery job vanished and deliver them again (a job of an older retwis
// still queued runs all the same, and marks its post when done).
func (m *migrator) indexUserPosts(ctx context.Context, log *slog.Logger) error {
	b := m.c.B()
	last, err := m.c.Do(ctx, b.Get().Key(schema.NextPostID).Build()).AsInt64()
	if rueidis.IsRedisNil(err) {
		return nil
	}
	if err != nil {
		return wrap("migrate: next post id", err)
	}
	for lo := int64(1); lo <= last; lo += migrateBatch {
		hi := min(lo+migrateBatch-1, last)
		cmds := make(rueidis.Commands, 0, hi-lo+1)
		for pid := lo; pid <= hi; pid++ {
			cmds = append(cmds, b.Hmget().Key(schema.Post(pid)).Field(schema.FieldUserID, schema.FieldTime).Build())
		}
		var adds rueidis.Commands
		for i, r := range m.c.DoMulti(ctx, cmds...) {
			pid := lo + int64(i)
			uid, ts, err := postAuthorTime(r)
			switch {
			case rueidis.IsRedisNil(err):
				continue // no such post: nothing to index
			case redisconn.IsDamage(err):
				log.Error("migrate: skipping a damaged post", "post", pid, "err", err)
				continue
			case err != nil:
				return wrap("migrate: read posts", err)
			}
			adds = append(adds, b.Zadd().Key(schema.UserPosts(uid)).ScoreMember().ScoreMember(float64(pid), strconv.FormatInt(pid, 10)).Build())
			if ts > 0 {
				adds = append(adds, b.Hset().Key(schema.Post(pid)).FieldValue().FieldValue(schema.FieldDelivered, strconv.FormatInt(ts*1000, 10)).Build())
			}
		}
		if err := redisconn.FirstErr(m.c.DoMulti(ctx, adds...)); err != nil {
			return wrap("migrate: index posts", err)
		}
		if hi == last || (hi/migrateBatch)%100 == 0 {
			log.Info("indexed posts", "done", hi, "of", last)
		}
	}
	return nil
}

// postAuthorTime reads the reply to HMGET user_id time of a post: a
// Redis nil error when there is no such post; ts is 0 when the time is
// missing or not a number.
func postAuthorTime(r rueidis.RedisResult) (uid, ts int64, err error) {
	vals, err := r.ToArray()
	if err != nil {
		return 0, 0, err
	}
	if len(vals) != 2 {
		return 0, 0, fmt.Errorf("migrate: HMGET answered %d values for 2 fields", len(vals))
	}
	if uid, err = vals[0].AsInt64(); err != nil {
		return 0, 0, err
	}
	ts, _ = vals[1].AsInt64()
	return uid, ts, nil
}

// celebrateAll records a job for every celebrity, which notes it in
// each of its followers' sets of followed celebrities (version 2).
func (m *migrator) celebrateAll(ctx context.Context, log *slog.Logger) error {
	celebs, err := m.c.Do(ctx, m.c.B().Smembers().Key(schema.LegacyCelebrities).Build()).AsIntSlice()
	if err != nil {
		return wrap("migrate: celebrities", err)
	}
	cmds := make(rueidis.Commands, len(celebs))
	for i, c := range celebs {
		cmds[i] = schema.Job(m.c.B(), schema.QueueOf(c), schema.JobCelebrate, 0, c)
	}
	if err := redisconn.FirstErr(m.c.DoMulti(ctx, cmds...)); err != nil {
		return wrap("migrate: celebrities", err)
	}
	log.Info("recorded followed celebrities", "celebrities", len(celebs))
	return nil
}

// shardQueue moves the jobs of the single delivery stream of retwis
// before version 3 onto the shards of the queue, each to its author's.
// Jobs that were running start again from their beginning (delivering
// twice is harmless); the old progress records and follower snapshots
// go.
func (m *migrator) shardQueue(ctx context.Context, log *slog.Logger) error {
	b := m.c.B()
	moved := 0
	for start := "-"; ; {
		entries, err := m.c.Do(ctx, b.Xrange().Key(schema.LegacyDeliveries).Start(start).End("+").Count(migrateBatch).Build()).AsXRange()
		if err != nil && !rueidis.IsRedisNil(err) {
			return wrap("migrate: read the old delivery stream", err)
		}
		cmds := make(rueidis.Commands, 0, len(entries))
		for _, e := range entries {
			kind := e.FieldValues[schema.JobKind]
			pid, _ := strconv.ParseInt(e.FieldValues[schema.JobPost], 10, 64)
			author, _ := strconv.ParseInt(e.FieldValues[schema.JobAuthor], 10, 64)
			if schema.JobValid(kind, pid, author, 0) { // the legacy stream held no jobs of boosts
				cmds = append(cmds, schema.Job(m.c.B(), schema.QueueOf(author), kind, pid, author))
			}
		}
		if err := redisconn.FirstErr(m.c.DoMulti(ctx, cmds...)); err != nil {
			return wrap("migrate: move delivery jobs", err)
		}
		moved += len(cmds)
		if len(entries) < migrateBatch {
			break
		}
		start = "(" + entries[len(entries)-1].ID
	}
	if _, err := m.scanHash(ctx, schema.LegacySnapshots, func(job, author string) rueidis.Commands {
		uid, _ := strconv.ParseInt(author, 10, 64)
		return rueidis.Commands{b.Del().Key(schema.LegacyJobFollowers(uid, job)).Build()}
	}); err != nil {
		return err
	}
	err := redisconn.FirstErr(m.c.DoMulti(ctx, b.Del().Key(schema.LegacyDeliveries).Build(),
		b.Del().Key(schema.LegacyProgress).Build(), b.Del().Key(schema.LegacySnapshots).Build()))
	if err != nil {
		return wrap("migrate: remove the old delivery stream", err)
	}
	log.Info("moved delivery jobs onto the shards of the queue", "jobs", moved)
	return nil
}

// tagUserKeys moves every per-user key of the layouts before version 3
// (user:<id>, posts:<id>…) to its name with the user id as hash tag
// (user:{<id>}), master by master: DUMP, RESTORE under the new name
// (unless that exists already: a server that migrated first), DEL.
func (m *migrator) tagUserKeys(ctx context.Context, log *slog.Logger) error {
	moved := 0
	for addr, node := range m.nodes.Masters(ctx) {
		if node == nil {
			return wrap("migrate: tag user keys", fmt.Errorf("master %s: %w", addr, redisconn.ErrNotConnected))
		}
		for _, prefix := range schema.UserKeyPrefixes {
			n, err := m.tagKeysOn(ctx, node, prefix)
			moved += n
			if err != nil {
				return err
			}
		}
	}
	log.Info("gave each user's keys the user id as hash tag", "keys", moved)
	return nil
}

// tagKeysOn moves the untagged keys of node whose name is prefix and a
// user id.
func (m *migrator) tagKeysOn(ctx context.Context, node rueidis.Client, prefix string) (int, error) {
	moved := 0
	var cursor uint64
	for {
		e, err := node.Do(ctx, node.B().Scan().Cursor(cursor).Match(prefix+"*").Count(migrateBatch).Build()).AsScanEntry()
		if err != nil {
			return moved, wrap("migrate: scan "+prefix, err)
		}
		var olds []string
		for _, k := range e.Elements {
			if uid, err := strconv.ParseInt(strings.TrimPrefix(k, prefix), 10, 64); err == nil && uid > 0 {
				olds = append(olds, k)
			}
		}
		n, err := m.moveKeys(ctx, olds, func(old string) string {
			return prefix + "{" + strings.TrimPrefix(old, prefix) + "}"
		})
		moved += n
		if err != nil {
			return moved, err
		}
		if cursor = e.Cursor; cursor == 0 {
			return moved, nil
		}
	}
}

// moveKeys renames olds to rename(old), across slots: DUMP, RESTORE,
// DEL, each step one pipeline.
func (m *migrator) moveKeys(ctx context.Context, olds []string, rename func(string) string) (int, error) {
	if len(olds) == 0 {
		return 0, nil
	}
	b := m.c.B()
	dumps := make(rueidis.Commands, len(olds))
	for i, k := range olds {
		dumps[i] = b.Dump().Key(k).Build()
	}
	restores := make(rueidis.Commands, 0, len(olds))
	for i, r := range m.c.DoMulti(ctx, dumps...) {
		payload, err := r.ToString()
		if rueidis.IsRedisNil(err) {
			continue // gone meanwhile
		}
		if err != nil {
			return 0, wrap("migrate: dump "+olds[i], err)
		}
		restores = append(restores, b.Restore().Key(rename(olds[i])).Ttl(0).SerializedValue(payload).Build())
	}
	for _, r := range m.c.DoMulti(ctx, restores...) {
		if err := r.Error(); err != nil && !strings.HasPrefix(err.Error(), "BUSYKEY") {
			return 0, wrap("migrate: restore", err)
		}
	}
	dels := make(rueidis.Commands, len(olds))
	for i, k := range olds {
		dels[i] = b.Del().Key(k).Build()
	}
	return len(olds), wrap("migrate: remove old keys", redisconn.FirstErr(m.c.DoMulti(ctx, dels...)))
}
