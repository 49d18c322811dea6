package store

import (
	"context"
	"log/slog"
	"strconv"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis"
)

// schemaVersion is the layout version this package writes. Version 1 adds
// the folded username index and the own-post indexes to the tutorial's
// layout; version 2 the per-user sets of followed celebrities.
const schemaVersion = 2

const migrateBatch = 1000

// Migrate prepares the database for this version of retwis; servers run
// it at start-up. It creates the delivery queue, loads the Lua scripts,
// and brings a database written by the original Retwis (or an older
// retwis) up to the current layout: it indexes every username ignoring
// case and every post under its author. It is idempotent and cheap once
// done; several servers may run it at the same time.
func (s *Store) Migrate(ctx context.Context, log *slog.Logger) error {
	v, err := s.c.Do(ctx, s.c.B().Get().Key(keySchema).Build()).AsInt64()
	if err != nil && !rueidis.IsRedisNil(err) {
		return s.wrap("migrate: version", err)
	}
	// Every start: the delivery queue must exist before the first post,
	// and the pipelined scripts must be loaded on every node.
	if err := s.ensureGroup(ctx); err != nil {
		return err
	}
	if err := s.loadScripts(ctx); err != nil {
		return err
	}
	if v >= schemaVersion {
		return nil
	}
	log.Info("migrating database layout", "from", v, "to", schemaVersion)
	if v < 1 {
		if err := s.indexUsernames(ctx, log); err != nil {
			return err
		}
		if err := s.indexUserPosts(ctx, log); err != nil {
			return err
		}
	}
	if err := s.celebrateAll(ctx, log); err != nil {
		return err
	}
	err = s.c.Do(ctx, s.c.B().Set().Key(keySchema).Value(strconv.Itoa(schemaVersion)).Build()).Error()
	return s.wrap("migrate: version", err)
}

// indexUsernames adds every name of the users hash to the folded index.
// When the original Retwis let two names differ only in case, the first
// one seen keeps the folded entry; the other still logs in by exact name.
func (s *Store) indexUsernames(ctx context.Context, log *slog.Logger) error {
	b := s.c.B()
	var cursor uint64
	n := 0
	for {
		e, err := s.c.Do(ctx, b.Hscan().Key(keyUsers).Cursor(cursor).Count(migrateBatch).Build()).AsScanEntry()
		if err != nil {
			return s.wrap("migrate: scan users", err)
		}
		cmds := make(rueidis.Commands, 0, len(e.Elements)/2)
		for i := 0; i+1 < len(e.Elements); i += 2 {
			name, uid := e.Elements[i], e.Elements[i+1]
			cmds = append(cmds, b.Hsetnx().Key(keyUsersFolded).Field(retwis.FoldUsername(name)).Value(uid).Build())
		}
		if err := firstErr(s.c.DoMulti(ctx, cmds...)); err != nil {
			return s.wrap("migrate: index users", err)
		}
		n += len(cmds)
		if cursor = e.Cursor; cursor == 0 {
			log.Info("indexed usernames", "users", n)
			return nil
		}
	}
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
			case isDamage(err):
				log.Error("migrate: skipping a damaged post", "post", pid, "err", err)
				continue
			case err != nil:
				return s.wrap("migrate: read posts", err)
			}
			adds = append(adds, b.Zadd().Key(keyUserPosts(uid)).ScoreMember().ScoreMember(float64(pid), id(pid)).Build())
		}
		if err := firstErr(s.c.DoMulti(ctx, adds...)); err != nil {
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
	celebs, err := s.c.Do(ctx, s.c.B().Smembers().Key(keyCelebrities).Build()).AsIntSlice()
	if err != nil {
		return s.wrap("migrate: celebrities", err)
	}
	cmds := make(rueidis.Commands, len(celebs))
	for i, c := range celebs {
		cmds[i] = s.jobCmd(jobCelebrate, 0, c)
	}
	if err := firstErr(s.c.DoMulti(ctx, cmds...)); err != nil {
		return s.wrap("migrate: celebrities", err)
	}
	log.Info("recorded followed celebrities", "celebrities", len(celebs))
	return nil
}
