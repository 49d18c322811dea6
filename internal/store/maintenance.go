package store

import (
	"context"
	"slices"
	"strconv"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis/internal/redisconn"
	"github.com/retwis/retwis/internal/store/schema"
)

// MaintenanceReport says what Maintain did.
type MaintenanceReport struct {
	Consumers int // delivery workers gone for good (nothing pending, idle GoneAfter), removed from the group
	Reclaimed int // stalled delivery jobs taken over and finished
	Orphans   int // progress records and follower snapshots of jobs that no longer exist, removed
	// Redelivered counts recent posts whose delivery job had vanished,
	// given a new one.
	Redelivered int
	// Reindexed counts the posts written before version 4 entered in
	// the indexes of tags and mentions, the users registered before
	// version 5 in the people search, and the sets of follows of version
	// 5 and before in the graph, and the users of version 6 and before
	// in the directory.
	Reindexed int
	// Refreshed counts the entries of the directory brought up to date
	// after deliveries (see RefreshStale).
	Refreshed int
	// Checked counts the keys the background check walked, and
	// Repaired the inconsistencies it fixed (see checkRound).
	Checked, Repaired int
	// Deletions counts the deletions of accounts carried on for a
	// server that stopped (see DeliveryOptions.ResumeDeletions).
	Deletions int
}

// Maintain does the periodic upkeep of the delivery queue, shard by
// shard: it takes over jobs that a dead worker left idle for
// opts.ClaimIdle and finishes them, removes workers gone for good from
// the consumer groups, removes progress records and follower snapshots
// whose job is gone, and gives recent posts whose job vanished a new
// one. It also counts down a few entries of the tag completion (the
// rare ones fade), enters a batch of what older versions wrote in the
// indexes they lacked (reindexOlder), and checks and repairs a batch of
// one kind of index (checkRound), after refreshing the directory's
// entries of the authors of the posts delivered since the last round
// and carrying on the deletions of accounts whose server stopped
// (opts.ResumeDeletions).
// It is safe but wasteful for several servers to run it at
// once (and the counts of the older posts' tags would be counted twice),
// so `retwis serve` runs it under a distributed lock.
func (s *Store) Maintain(ctx context.Context, opts DeliveryOptions) (MaintenanceReport, error) {
	opts.setDefaults()
	var rep MaintenanceReport
	q := s.deliveryQueue(opts)
	var err error
	if rep.Reclaimed, err = q.Reclaim(ctx, opts.ClaimIdle); err != nil {
		return rep, s.Wrap("maintenance: reclaim jobs", err)
	}
	if rep.Consumers, err = q.RemoveGone(ctx, opts.GoneAfter); err != nil {
		return rep, s.Wrap("maintenance: remove gone workers", err)
	}
	for n := range schema.QueueShards {
		if err := s.removeShardOrphans(ctx, schema.QueueN(n), &rep); err != nil {
			return rep, err
		}
	}
	if rep.Redelivered, err = s.redeliverVanished(ctx); err != nil {
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
	if opts.ResumeDeletions != nil {
		if rep.Deletions, err = opts.ResumeDeletions(ctx); err != nil {
			return rep, err
		}
	}
	rep.Checked, rep.Repaired, err = s.checkRound(ctx)
	return rep, err
}

// backgroundCheckBudget is how many keys a round of maintenance checks.
const backgroundCheckBudget = 2000

// checkRound checks, and repairs, the next backgroundCheckBudget keys of
// the next kind of index of the rotation (schema.CheckRotation, the
// seed's list rotated with LMOVE: each round takes its head to its
// tail), and logs what it repaired. Each kind keeps its own progress, so
// the rotation walks every kind to its end, a round at a time, and
// starts over. It returns how many keys it walked and problems it fixed.
func (s *Store) checkRound(ctx context.Context) (walked, repaired int, err error) {
	kind, err := s.nextToCheck(ctx)
	if err != nil {
		return 0, 0, err
	}
	rep, err := s.Check(ctx, CheckOptions{Repair: true, Kinds: []string{kind}, Scope: "background", Budget: backgroundCheckBudget})
	for _, p := range rep.Problems {
		s.Log.Warn("the background check repaired an index", "kind", p.Kind, "problem", p.What, "count", p.Repaired, "examples", p.Examples)
		repaired += int(p.Repaired)
	}
	return int(rep.Keys), repaired, err
}

// nextToCheck rotates the list of kinds to check, and returns the one
// it moved; it writes the list first if it is missing or out of date
// (a kind added by an upgrade).
func (s *Store) nextToCheck(ctx context.Context) (string, error) {
	b := s.C.B()
	kinds := CheckKinds()
	listed, err := s.C.Do(ctx, b.Lrange().Key(schema.CheckRotation).Start(0).Stop(-1).Build()).AsStrSlice()
	if err != nil {
		return "", s.Wrap("maintenance: check rotation", err)
	}
	if slices.Sort(listed); !slices.Equal(listed, slices.Sorted(slices.Values(kinds))) {
		err := redisconn.FirstErr(s.C.DoMulti(ctx, b.Del().Key(schema.CheckRotation).Build(),
			b.Rpush().Key(schema.CheckRotation).Element(kinds...).Build()))
		if err != nil {
			return "", s.Wrap("maintenance: check rotation", err)
		}
	}
	kind, err := s.C.Do(ctx, b.Lmove().Source(schema.CheckRotation).Destination(schema.CheckRotation).Left().Right().Build()).ToString()
	return kind, s.Wrap("maintenance: check rotation", err)
}

// removeShardOrphans removes the progress records and follower snapshots
// of shard q of the queue whose job is gone, adding them to rep.
func (s *Store) removeShardOrphans(ctx context.Context, q schema.Queue, rep *MaintenanceReport) error {
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
func (s *Store) removeOrphans(ctx context.Context, q schema.Queue, key string, tidy func(job, value string) rueidis.Completed) (int, error) {
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
