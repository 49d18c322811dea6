// Package upkeep is the periodic upkeep of a retwis database, a round
// at a time under a distributed lock (the maintenance loop of `retwis
// serve`): the delivery queue's stalled jobs, gone workers, orphaned
// records and vanished jobs (through package delivery), the follows
// whose request failed midway, the posts whose publication failed, the
// scheduled posts due (package scheduled), the completion's fading, the backfills of indexes that older versions
// lacked (backfills.go), the directory's stale entries, the deletions
// of accounts whose server stopped (package deletion), the trimming of
// home timelines' histories (history.go) and a round of the consistency
// check (package check). It is its own package because it
// drives the others: it imports store, delivery, deletion and check,
// which import none of it.
package upkeep

import (
	"context"
	"strconv"
	"time"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis/internal/store"
	"github.com/retwis/retwis/internal/store/check"
	"github.com/retwis/retwis/internal/store/deletion"
	"github.com/retwis/retwis/internal/store/delivery"
	"github.com/retwis/retwis/internal/store/scheduled"
	"github.com/retwis/retwis/internal/store/schema"
)

// Report says what a Round did.
type Report struct {
	Consumers int // delivery workers gone for good (nothing pending, idle GoneAfter), removed from the group
	Reclaimed int // stalled delivery jobs taken over and finished
	Orphans   int // progress records and follower snapshots of jobs that no longer exist, removed
	// Redelivered counts recent posts whose delivery job had vanished,
	// given a new one; RedeliveredBoosts recent boosts and take-backs of
	// boosts likewise (see delivery.Worker.RedeliverVanished).
	Redelivered, RedeliveredBoosts int
	// Reindexed counts the posts written before version 4 entered in
	// the indexes of tags and mentions, the users registered before
	// version 5 in the people search, and the sets of follows of version
	// 5 and before in the graph, and the users of version 6 and before
	// in the directory.
	Reindexed int
	// Refreshed counts the entries of the directory brought up to date
	// after deliveries (see RefreshStale).
	Refreshed int
	// Follows counts the follows and unfollows whose request failed
	// midway, completed (see store.RepairFollows).
	Follows int
	// TakenBack counts the posts whose publication failed and could not
	// be taken back at once, taken back (see posts.Store.TakeBackPosts).
	TakenBack int
	// Scheduled counts the scheduled posts published, those due
	// (package scheduled).
	Scheduled int
	// Deletions counts the deletions of accounts carried on for a
	// server that stopped.
	Deletions int
	// Trimmed counts the post ids dropped from the oldest history of
	// home timelines, past Options.HomeHistory.
	Trimmed int
	// Checked counts the keys of the round of the consistency check,
	// Repaired the problems it found and repaired.
	Checked, Repaired int
}

// keeper is the store, for the steps of a round that read and write it
// directly (the orphans, the completion, the backfills).
type keeper struct{ *store.Store }

// Round does one round of upkeep of st's database, in order, stopping
// at the first error: through d, the delivery worker, it takes over jobs
// that a dead worker left idle for its ClaimIdle and finishes them, and
// removes workers gone for good from the consumer groups; it removes
// progress records and follower snapshots whose job is gone, and
// (through d) gives recent posts and boosts whose job vanished a new
// one. It completes the follows and unfollows whose request failed midway
// (store.RepairFollows, those begun FollowChangeGrace ago or more) and
// takes back the posts whose publication failed but could not be taken
// back at once (TakeBackPosts). It publishes the scheduled posts due
// (scheduled.Store.PublishDue). It counts
// down a few entries of the tag completion (the rare ones fade), enters
// a batch of what older versions wrote in the indexes they lacked
// (backfills.go), refreshes the directory's entries of the authors of
// the posts delivered since the last round, carries on (through del)
// the deletions of accounts whose server stopped, drops the oldest
// chunks of home timelines' archives past their history
// (Options.HomeHistory, a bounded number a round: history.go), and
// checks a batch of one kind of index (check.Round), repairing what it
// finds.
//
// It is safe but wasteful for several servers to run it at once (and
// the counts of the older posts' tags would be counted twice), so `retwis
// serve` runs it under a distributed lock.
func Round(ctx context.Context, st *store.Store, d *delivery.Worker, del *deletion.Deleter) (Report, error) {
	s := keeper{st}
	var rep Report
	var err error
	if rep.Reclaimed, err = d.Reclaim(ctx); err != nil {
		return rep, s.Wrap("maintenance: reclaim jobs", err)
	}
	if rep.Consumers, err = d.RemoveGone(ctx); err != nil {
		return rep, s.Wrap("maintenance: remove gone workers", err)
	}
	for n := range schema.QueueShards {
		if err := s.removeShardOrphans(ctx, schema.QueueN(n), &rep); err != nil {
			return rep, err
		}
	}
	redelivered, err := d.RedeliverVanished(ctx)
	rep.Redelivered, rep.RedeliveredBoosts = redelivered.Posts, redelivered.Boosts
	if err != nil {
		return rep, err
	}
	if rep.Follows, err = st.RepairFollows(ctx, time.Now().Add(-store.FollowChangeGrace)); err != nil {
		return rep, err
	}
	if rep.TakenBack, err = st.TakeBackPosts(ctx); err != nil {
		return rep, err
	}
	if rep.Scheduled, err = scheduled.New(st).PublishDue(ctx, time.Now()); err != nil {
		return rep, err
	}
	if err := s.purgeCompletion(ctx); err != nil {
		return rep, err
	}
	if rep.Reindexed, err = s.reindexOlder(ctx); err != nil {
		return rep, err
	}
	if rep.Refreshed, err = s.RefreshStale(ctx); err != nil {
		return rep, err
	}
	if rep.Deletions, err = del.ResumeDeletions(ctx); err != nil {
		return rep, err
	}
	if rep.Trimmed, err = s.trimHistories(ctx); err != nil {
		return rep, err
	}
	rep.Checked, rep.Repaired, err = check.Round(ctx, st)
	return rep, err
}

// removeShardOrphans removes the progress records and follower snapshots
// of shard q of the queue whose job is gone, adding them to rep.
func (s keeper) removeShardOrphans(ctx context.Context, q schema.Queue, rep *Report) error {
	n, err := s.removeOrphans(ctx, q, q.Progress, nil)
	rep.Orphans += n
	if err != nil {
		return err
	}
	n, err = s.removeOrphans(ctx, q, q.Snapshots, func(job, author string) rueidis.Completed {
		uid, _ := strconv.ParseInt(author, 10, 64)
		return s.C.B().Del().Key(schema.JobFollowers(uid, job)).Build()
	})
	rep.Orphans += n
	return err
}

// removeOrphans deletes the fields of the hash key (the progress or the
// snapshots of shard q, both keyed by job) whose job is no longer in q's
// stream: a worker that dies between acknowledging a job and tidying up
// leaves them behind. tidy, if set, gives a command that removes what
// the field stands for (the snapshot itself), run before the field goes.
func (s keeper) removeOrphans(ctx context.Context, q schema.Queue, key string, tidy func(job, value string) rueidis.Completed) (int, error) {
	b := s.C.B()
	removed := 0
	var cursor uint64
	for {
		e, err := s.C.Do(ctx, b.Hscan().Key(key).Cursor(cursor).Count(100).Build()).AsScanEntry()
		if err != nil {
			return removed, s.Wrap("maintenance: scan "+key, err)
		}
		for i := 0; i+1 < len(e.Elements); i += 2 {
			job := e.Elements[i]
			entries, err := s.C.Do(ctx, b.Xrange().Key(q.Stream).Start(job).End(job).Build()).AsXRange()
			if err != nil && !rueidis.IsRedisNil(err) {
				return removed, s.Wrap("maintenance: check job", err)
			}
			if len(entries) > 0 {
				continue
			}
			if tidy != nil {
				if err := s.C.Do(ctx, tidy(job, e.Elements[i+1])).Error(); err != nil {
					return removed, s.Wrap("maintenance: tidy "+key, err)
				}
			}
			if err := s.C.Do(ctx, b.Hdel().Key(key).Field(job).Build()).Error(); err != nil {
				return removed, s.Wrap("maintenance: tidy "+key, err)
			}
			removed++
		}
		if cursor = e.Cursor; cursor == 0 {
			return removed, nil
		}
	}
}
