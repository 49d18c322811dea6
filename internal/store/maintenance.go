package store

import (
	"context"

	"github.com/redis/rueidis"
)

// MaintenanceReport says what Maintain did.
type MaintenanceReport struct {
	Reclaimed int // stalled delivery jobs taken over and finished
	Orphans   int // progress records of jobs that no longer exist, removed
}

// Maintain does the periodic upkeep of the delivery queue: it takes over
// jobs that a dead worker left idle for opts.ClaimIdle and finishes them,
// and removes progress records whose job is gone. It is safe but wasteful
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
	n, err := s.removeOrphanProgress(ctx)
	rep.Orphans = n
	return rep, err
}

// removeOrphanProgress deletes progress records of jobs no longer in the
// stream (a worker that died between acknowledging a job and deleting its
// record leaves one behind).
func (s *Store) removeOrphanProgress(ctx context.Context) (int, error) {
	b := s.c.B()
	removed := 0
	var cursor uint64
	for {
		e, err := s.c.Do(ctx, b.Hscan().Key(keyProgress).Cursor(cursor).Count(100).Build()).AsScanEntry()
		if err != nil {
			return removed, s.wrap("maintenance: scan progress", err)
		}
		for i := 0; i+1 < len(e.Elements); i += 2 {
			job := e.Elements[i]
			entries, err := s.c.Do(ctx, b.Xrange().Key(keyDeliveries).Start(job).End(job).Build()).AsXRange()
			if err != nil && !rueidis.IsRedisNil(err) {
				return removed, s.wrap("maintenance: check job", err)
			}
			if len(entries) == 0 && s.c.Do(ctx, b.Hdel().Key(keyProgress).Field(job).Build()).Error() == nil {
				removed++
			}
		}
		if cursor = e.Cursor; cursor == 0 {
			return removed, nil
		}
	}
}
