package store

import (
	"context"
	"strconv"

	"github.com/redis/rueidis"
)

// MaintenanceReport says what Maintain did.
type MaintenanceReport struct {
	Reclaimed int // stalled delivery jobs taken over and finished
	Orphans   int // progress records and follower snapshots of jobs that no longer exist, removed
}

// Maintain does the periodic upkeep of the delivery queue: it takes over
// jobs that a dead worker left idle for opts.ClaimIdle and finishes them,
// and removes progress records and follower snapshots whose job is gone. It is safe but wasteful
// for several servers to run it at once, so `retwis serve` runs it under a
// distributed lock.
func (s *Store) Maintain(ctx context.Context, opts DeliveryOptions) (MaintenanceReport, error) {
	opts.setDefaults()
	var rep MaintenanceReport
	for ctx.Err() == nil {
		jobs, err := s.claimJobs(ctx, opts)
		if err != nil {
			return rep, err
		}
		if len(jobs) == 0 {
			break
		}
		for i := range jobs {
			jobs[i].claimed = true
		}
		if err := s.runJobs(ctx, jobs, opts); err != nil {
			return rep, err
		}
		rep.Reclaimed += len(jobs)
	}
	n, err := s.removeOrphans(ctx, keyProgress, nil)
	rep.Orphans += n
	if err != nil {
		return rep, err
	}
	n, err = s.removeOrphans(ctx, keySnapshots, func(job, author string) rueidis.Completed {
		uid, _ := strconv.ParseInt(author, 10, 64)
		return s.c.B().Del().Key(keyJobFollowers(uid, job)).Build()
	})
	rep.Orphans += n
	return rep, err
}

// removeOrphans deletes the fields of the hash key (delivery_progress
// or delivery_snapshots, both keyed by job) whose job is no longer in the
// stream: a worker that dies between acknowledging a job and tidying up
// leaves them behind. tidy, if set, gives a command that removes what
// the field stands for (the snapshot itself), run before the field goes.
func (s *Store) removeOrphans(ctx context.Context, key string, tidy func(job, value string) rueidis.Completed) (int, error) {
	b := s.c.B()
	removed := 0
	var cursor uint64
	for {
		e, err := s.c.Do(ctx, b.Hscan().Key(key).Cursor(cursor).Count(100).Build()).AsScanEntry()
		if err != nil {
			return removed, s.wrap("maintenance: scan "+key, err)
		}
		for i := 0; i+1 < len(e.Elements); i += 2 {
			job := e.Elements[i]
			entries, err := s.c.Do(ctx, b.Xrange().Key(keyDeliveries).Start(job).End(job).Build()).AsXRange()
			if err != nil && !rueidis.IsRedisNil(err) {
				return removed, s.wrap("maintenance: check job", err)
			}
			if len(entries) > 0 {
				continue
			}
			if tidy != nil {
				if err := s.c.Do(ctx, tidy(job, e.Elements[i+1])).Error(); err != nil {
					return removed, s.wrap("maintenance: tidy "+key, err)
				}
			}
			if err := s.c.Do(ctx, b.Hdel().Key(key).Field(job).Build()).Error(); err != nil {
				return removed, s.wrap("maintenance: tidy "+key, err)
			}
			removed++
		}
		if cursor = e.Cursor; cursor == 0 {
			return removed, nil
		}
	}
}
