package store

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"strings"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/jobqueue"
	"github.com/retwis/retwis/internal/redisconn"
)

// schemaVersion is the layout version this package writes. Version 1 adds
// the own-post indexes to the tutorial's layout; version 2 the per-user
// sets of followed celebrities; version 3 spreads the indexes that every
// request shared (names, auth secrets, the delivery queue) over shards,
// folds the last-seen times and the celebrities into the user hashes,
// and tags each user's keys with the user id, so that they share a slot.
const schemaVersion = 3

const migrateBatch = 1000

// Migrate prepares the database for this version of retwis; servers run
// it at start-up. It creates the delivery queue, loads the Lua scripts,
// and brings a database written by the original Retwis (or an older
// retwis) up to the current layout, once: from then on retwis owns the
// layout, and a PHP Retwis must no longer write to it. It is idempotent
// and cheap once done; several servers may run it at the same time, but
// servers of an older version must be stopped first.
func (s *Store) Migrate(ctx context.Context, log *slog.Logger) error {
	v, err := s.c.Do(ctx, s.c.B().Get().Key(keySchema).Build()).AsInt64()
	if err != nil && !rueidis.IsRedisNil(err) {
		return s.wrap("migrate: version", err)
	}
	// Every start: the delivery queue must exist before the first post,
	// and the pipelined scripts must be loaded on every node.
	q := s.deliveryQueue(DeliveryOptions{})
	for n := range queueShards {
		if err := q.EnsureGroup(ctx, queueN(n).stream); err != nil {
			return s.wrap("migrate: delivery queue", err)
		}
	}
	if err := s.loadScripts(ctx); err != nil {
		return err
	}
	if v >= schemaVersion {
		return nil
	}
	log.Info("migrating database layout", "from", v, "to", schemaVersion)
	steps := []struct {
		before int64 // the step is for databases older than this version
		run    func(context.Context, *slog.Logger) error
	}{
		{1, s.indexUserPosts},
		{2, s.celebrateAll},
		{3, s.tagUserKeys},
		{3, s.shardNames},
		{3, s.shardAuths},
		{3, s.foldIntoUsers},
		{3, s.shardQueue},
	}
	for _, st := range steps {
		if v < st.before {
			if err := st.run(ctx, log); err != nil {
				return err
			}
		}
	}
	err = s.c.Do(ctx, s.c.B().Set().Key(keySchema).Value(strconv.Itoa(schemaVersion)).Build()).Error()
	return s.wrap("migrate: version", err)
}

// scanHash walks the hash key with HSCAN and sends, for each batch, the
// commands each field and value give, in one pipeline. It returns how
// many fields it walked.
func (s *Store) scanHash(ctx context.Context, key string, cmds func(field, value string) rueidis.Commands) (int, error) {
	return s.scanPairs(ctx, key, func(cursor uint64) rueidis.Completed {
		return s.c.B().Hscan().Key(key).Cursor(cursor).Count(migrateBatch).Build()
	}, cmds)
}

// scanSortedSet walks the sorted set key with ZSCAN, as scanHash does,
// giving each member and its score.
func (s *Store) scanSortedSet(ctx context.Context, key string, cmds func(member, score string) rueidis.Commands) (int, error) {
	return s.scanPairs(ctx, key, func(cursor uint64) rueidis.Completed {
		return s.c.B().Zscan().Key(key).Cursor(cursor).Count(migrateBatch).Build()
	}, cmds)
}

// scanPairs walks key with the scan command that scan builds for a
// cursor, whose replies are flat lists of pairs.
func (s *Store) scanPairs(ctx context.Context, key string, scan func(cursor uint64) rueidis.Completed,
	cmds func(a, b string) rueidis.Commands) (int, error) {
	var cursor uint64
	n := 0
	for {
		e, err := s.c.Do(ctx, scan(cursor)).AsScanEntry()
		if err != nil {
			return n, s.wrap("migrate: scan "+key, err)
		}
		var batch rueidis.Commands
		for i := 0; i+1 < len(e.Elements); i += 2 {
			batch = append(batch, cmds(e.Elements[i], e.Elements[i+1])...)
		}
		if err := redisconn.FirstErr(s.c.DoMulti(ctx, batch...)); err != nil {
			return n, s.wrap("migrate: "+key, err)
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
func (s *Store) shardNames(ctx context.Context, log *slog.Logger) error {
	b := s.c.B()
	if _, err := s.scanHash(ctx, legacyUsersFolded, func(folded, uid string) rueidis.Commands {
		return rueidis.Commands{b.Hsetnx().Key(keyNamesFolded(folded)).Field(folded).Value(uid).Build()}
	}); err != nil {
		return err
	}
	n, err := s.scanHash(ctx, legacyUsers, func(name, uid string) rueidis.Commands {
		return rueidis.Commands{
			b.Hset().Key(keyNames(name)).FieldValue().FieldValue(name, uid).Build(),
			b.Hsetnx().Key(keyNamesFolded(name)).Field(retwis.FoldUsername(name)).Value(uid).Build(),
		}
	})
	if err != nil {
		return err
	}
	log.Info("spread the username index over shards", "users", n)
	return s.wrap("migrate: remove the old name indexes",
		redisconn.FirstErr(s.c.DoMulti(ctx, b.Del().Key(legacyUsers).Build(), b.Del().Key(legacyUsersFolded).Build())))
}

// shardAuths moves the auth secrets into their shards.
func (s *Store) shardAuths(ctx context.Context, log *slog.Logger) error {
	b := s.c.B()
	n, err := s.scanHash(ctx, legacyAuths, func(secret, uid string) rueidis.Commands {
		return rueidis.Commands{b.Hset().Key(keyAuths(secret)).FieldValue().FieldValue(secret, uid).Build()}
	})
	if err != nil {
		return err
	}
	log.Info("spread the auth secrets over shards", "secrets", n)
	return s.wrap("migrate: remove the old auths", s.c.Do(ctx, b.Del().Key(legacyAuths).Build()).Error())
}

// foldIntoUsers moves the last-seen times (where the user hash lacks
// one) and the celebrity flags into the user hashes.
func (s *Store) foldIntoUsers(ctx context.Context, log *slog.Logger) error {
	b := s.c.B()
	seen, err := s.scanSortedSet(ctx, legacyLastSeen, func(member, score string) rueidis.Commands {
		uid, err1 := strconv.ParseInt(member, 10, 64)
		at, err2 := strconv.ParseFloat(score, 64)
		if err1 != nil || err2 != nil {
			return nil // not a user id: nothing to move
		}
		return rueidis.Commands{b.Hsetnx().Key(keyUser(uid)).Field(fieldSeen).Value(strconv.FormatInt(int64(at), 10)).Build()}
	})
	if err != nil {
		return err
	}
	celebs, err := s.c.Do(ctx, b.Smembers().Key(legacyCelebrities).Build()).AsIntSlice()
	if err != nil {
		return s.wrap("migrate: celebrities", err)
	}
	cmds := make(rueidis.Commands, 0, len(celebs)+2)
	for _, c := range celebs {
		cmds = append(cmds, b.Hset().Key(keyUser(c)).FieldValue().FieldValue(fieldCelebrity, "1").Build())
	}
	cmds = append(cmds, b.Del().Key(legacyLastSeen).Build(), b.Del().Key(legacyCelebrities).Build())
	if err := redisconn.FirstErr(s.c.DoMulti(ctx, cmds...)); err != nil {
		return s.wrap("migrate: fold into user hashes", err)
	}
	log.Info("moved last-seen times and celebrity flags into the user hashes", "seen", seen, "celebrities", len(celebs))
	return nil
}

// indexUserPosts walks every post id ever issued, in batches, and adds
// each existing post to its author's own-post index.
func (s *Store) indexUserPosts(ctx context.Context, log *slog.Logger) error {
	b := s.c.B()
	last, err := s.c.Do(ctx, b.Get().Key(keyNextPostID).Build()).AsInt64()
	if rueidis.IsRedisNil(err) {
		return nil
	}
	if err != nil {
		return s.wrap("migrate: next post id", err)
	}
	for lo := int64(1); lo <= last; lo += migrateBatch {
		hi := min(lo+migrateBatch-1, last)
		cmds := make(rueidis.Commands, 0, hi-lo+1)
		for pid := lo; pid <= hi; pid++ {
			cmds = append(cmds, b.Hget().Key(keyPost(pid)).Field(fieldUserID).Build())
		}
		var adds rueidis.Commands
		for i, r := range s.c.DoMulti(ctx, cmds...) {
			pid := lo + int64(i)
			uid, err := r.AsInt64()
			switch {
			case rueidis.IsRedisNil(err):
				continue // no such post: nothing to index
			case redisconn.IsDamage(err):
				log.Error("migrate: skipping a damaged post", "post", pid, "err", err)
				continue
			case err != nil:
				return s.wrap("migrate: read posts", err)
			}
			adds = append(adds, b.Zadd().Key(keyUserPosts(uid)).ScoreMember().ScoreMember(float64(pid), id(pid)).Build())
		}
		if err := redisconn.FirstErr(s.c.DoMulti(ctx, adds...)); err != nil {
			return s.wrap("migrate: index posts", err)
		}
		if hi == last || (hi/migrateBatch)%100 == 0 {
			log.Info("indexed posts", "done", hi, "of", last)
		}
	}
	return nil
}

// celebrateAll records a job for every celebrity, which notes it in
// each of its followers' sets of followed celebrities (version 2).
func (s *Store) celebrateAll(ctx context.Context, log *slog.Logger) error {
	celebs, err := s.c.Do(ctx, s.c.B().Smembers().Key(legacyCelebrities).Build()).AsIntSlice()
	if err != nil {
		return s.wrap("migrate: celebrities", err)
	}
	cmds := make(rueidis.Commands, len(celebs))
	for i, c := range celebs {
		cmds[i] = s.jobCmd(queueOf(c), jobCelebrate, 0, c)
	}
	if err := redisconn.FirstErr(s.c.DoMulti(ctx, cmds...)); err != nil {
		return s.wrap("migrate: celebrities", err)
	}
	log.Info("recorded followed celebrities", "celebrities", len(celebs))
	return nil
}

// shardQueue moves the jobs of the single delivery stream of retwis
// before version 3 onto the shards of the queue, each to its author's.
// Jobs that were running start again from their beginning (delivering
// twice is harmless); the old progress records and follower snapshots
// go.
func (s *Store) shardQueue(ctx context.Context, log *slog.Logger) error {
	b := s.c.B()
	moved := 0
	for start := "-"; ; {
		entries, err := s.c.Do(ctx, b.Xrange().Key(legacyDeliveries).Start(start).End("+").Count(migrateBatch).Build()).AsXRange()
		if err != nil && !rueidis.IsRedisNil(err) {
			return s.wrap("migrate: read the old delivery stream", err)
		}
		cmds := make(rueidis.Commands, 0, len(entries))
		for _, qj := range jobqueue.Parse(legacyDeliveries, entries, false) {
			j := parseJob(qj)
			if j.valid() {
				cmds = append(cmds, s.jobCmd(queueOf(j.author), j.kind, j.post, j.author))
			}
		}
		if err := redisconn.FirstErr(s.c.DoMulti(ctx, cmds...)); err != nil {
			return s.wrap("migrate: move delivery jobs", err)
		}
		moved += len(cmds)
		if len(entries) < migrateBatch {
			break
		}
		start = "(" + entries[len(entries)-1].ID
	}
	if _, err := s.scanHash(ctx, legacySnapshots, func(job, author string) rueidis.Commands {
		uid, _ := strconv.ParseInt(author, 10, 64)
		return rueidis.Commands{b.Del().Key(legacyJobFollowers(uid, job)).Build()}
	}); err != nil {
		return err
	}
	err := redisconn.FirstErr(s.c.DoMulti(ctx, b.Del().Key(legacyDeliveries).Build(),
		b.Del().Key(legacyProgress).Build(), b.Del().Key(legacySnapshots).Build()))
	if err != nil {
		return s.wrap("migrate: remove the old delivery stream", err)
	}
	log.Info("moved delivery jobs onto the shards of the queue", "jobs", moved)
	return nil
}

// tagUserKeys moves every per-user key of the layouts before version 3
// (user:<id>, posts:<id>…) to its name with the user id as hash tag
// (user:{<id>}), master by master: DUMP, RESTORE under the new name
// (unless that exists already: a server that migrated first), DEL.
func (s *Store) tagUserKeys(ctx context.Context, log *slog.Logger) error {
	moved := 0
	for addr, node := range s.nodes.Masters(ctx) {
		if node == nil {
			return s.wrap("migrate: tag user keys", fmt.Errorf("master %s: %w", addr, redisconn.ErrNotConnected))
		}
		for _, prefix := range userKeyPrefixes {
			n, err := s.tagKeysOn(ctx, node, prefix)
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
func (s *Store) tagKeysOn(ctx context.Context, node rueidis.Client, prefix string) (int, error) {
	moved := 0
	var cursor uint64
	for {
		e, err := node.Do(ctx, node.B().Scan().Cursor(cursor).Match(prefix+"*").Count(migrateBatch).Build()).AsScanEntry()
		if err != nil {
			return moved, s.wrap("migrate: scan "+prefix, err)
		}
		var olds []string
		for _, k := range e.Elements {
			if uid, err := strconv.ParseInt(strings.TrimPrefix(k, prefix), 10, 64); err == nil && uid > 0 {
				olds = append(olds, k)
			}
		}
		n, err := s.moveKeys(ctx, olds, func(old string) string {
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
func (s *Store) moveKeys(ctx context.Context, olds []string, rename func(string) string) (int, error) {
	if len(olds) == 0 {
		return 0, nil
	}
	b := s.c.B()
	dumps := make(rueidis.Commands, len(olds))
	for i, k := range olds {
		dumps[i] = b.Dump().Key(k).Build()
	}
	restores := make(rueidis.Commands, 0, len(olds))
	for i, r := range s.c.DoMulti(ctx, dumps...) {
		payload, err := r.ToString()
		if rueidis.IsRedisNil(err) {
			continue // gone meanwhile
		}
		if err != nil {
			return 0, s.wrap("migrate: dump "+olds[i], err)
		}
		restores = append(restores, b.Restore().Key(rename(olds[i])).Ttl(0).SerializedValue(payload).Build())
	}
	for _, r := range s.c.DoMulti(ctx, restores...) {
		if err := r.Error(); err != nil && !strings.HasPrefix(err.Error(), "BUSYKEY") {
			return 0, s.wrap("migrate: restore", err)
		}
	}
	dels := make(rueidis.Commands, len(olds))
	for i, k := range olds {
		dels[i] = b.Del().Key(k).Build()
	}
	return len(olds), s.wrap("migrate: remove old keys", redisconn.FirstErr(s.c.DoMulti(ctx, dels...)))
}
