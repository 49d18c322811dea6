package store

import (
	"context"
	"log/slog"
	"strconv"
	"time"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis/internal/jobqueue"
	"github.com/retwis/retwis/internal/store/migrate"
	"github.com/retwis/retwis/internal/store/schema"
)

// Migrate prepares the database for this version of retwis; servers run
// it at start-up. It creates the delivery queue, loads the Lua scripts,
// and brings a database written by the original Retwis (or an older
// retwis) up to the current layout, once: from then on retwis owns the
// layout, and a PHP Retwis must no longer write to it. It is idempotent
// and cheap once done; several servers may run it at the same time, but
// servers of an older version must be stopped first.
func (s *Store) Migrate(ctx context.Context, log *slog.Logger) error {
	v, err := s.C.Do(ctx, s.C.B().Get().Key(schema.VersionKey).Build()).AsInt64()
	if err != nil && !rueidis.IsRedisNil(err) {
		return s.Wrap("migrate: version", err)
	}
	// Every start: the delivery queue must exist before the first post,
	// and the pipelined scripts must be loaded on every node.
	q := jobqueue.New(s.C, jobqueue.Options{Group: schema.DeliveryGroup}) // only to create the groups (the workers' handle is package delivery's)
	for n := range schema.QueueShards {
		if err := q.EnsureGroup(ctx, schema.QueueN(n).Stream); err != nil {
			return s.Wrap("migrate: delivery queue", err)
		}
	}
	if err := s.LoadScripts(ctx); err != nil {
		return err
	}
	if v >= schema.Version {
		return nil
	}
	log.Info("migrating database layout", "from", v, "to", schema.Version)
	if err := migrate.Run(ctx, s.C, s.Nodes, v, log); err != nil {
		return s.Wrap("migrate", err)
	}
	empty, err := s.IsEmpty(ctx)
	if err != nil {
		return err
	}
	// What was written before an index existed is indexed in the
	// background, a batch each maintenance round (see backfill).
	since := strconv.FormatInt(time.Now().Unix(), 10)
	for _, bf := range []struct {
		version int64
		state   string
		what    string
	}{
		{4, schema.ReindexState, "the posts written before are indexed by tag and mention in the background, a batch each maintenance round"},
		{5, schema.PeopleReindexState, "the users registered before are entered in the people search in the background, a batch each maintenance round"},
		{6, schema.GraphReindexState, "the follows made before are entered in the graph in the background, a batch each maintenance round"},
		{7, schema.ExploreReindexState, "the users registered before are entered in the directory in the background, a batch each maintenance round"},
		{8, schema.AuthorsReindexState, "the posts written before get their authors' usernames in the background, a batch each maintenance round"},
		{8, schema.ConversationsReindexState, "the direct posts written before are entered in their conversations in the background, a batch each maintenance round"},
		{9, schema.ActivityReindexState, "the users registered before are ordered by their newest post in the background, a batch each maintenance round"},
	} {
		if v >= bf.version || empty {
			continue
		}
		err := s.C.Do(ctx, s.C.B().Hsetnx().Key(bf.state).Field(schema.FieldReindexSince).Value(since).Build()).Error()
		if err != nil {
			return s.Wrap("migrate: reindex", err)
		}
		log.Info(bf.what)
	}
	err = s.C.Do(ctx, s.C.B().Set().Key(schema.VersionKey).Value(strconv.Itoa(schema.Version)).Build()).Error()
	return s.Wrap("migrate: version", err)
}
