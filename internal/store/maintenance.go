package store

import (
	"context"
	"strconv"
	"time"

	"github.com/redis/rueidis"
)

// MaintenanceReport says what Maintain did.
type MaintenanceReport struct {
	Consumers int // delivery workers gone for good (nothing pending, idle GoneAfter), removed from the group
	Reclaimed int // stalled delivery jobs taken over and finished
	Orphans   int // progress records and follower snapshots of jobs that no longer exist, removed
}

// Maintain does the periodic upkeep of the delivery queue, shard by
// shard: it takes over jobs that a dead worker left idle for
// opts.ClaimIdle and finishes them, removes workers gone for good from
// the consumer groups, and removes progress records and follower
// snapshots whose job is gone. It is safe but wasteful for several
// servers to run it at once, so `retwis serve` runs it under a
// distributed lock.
func (s *Store) Maintain(ctx context.Context, opts DeliveryOptions) (MaintenanceReport, error) {
	opts.setDefaults()
	var rep MaintenanceReport
	for n := range queueShards {
		if err := s.maintainQueue(ctx, queueN(n), opts, &rep); err != nil {
			return rep, err
		}
	}
	return rep, nil
}

// maintainQueue does the upkeep of one shard of the queue, adding what
// it did to rep.
func (s *Store) maintainQueue(ctx context.Context, q queue, opts DeliveryOptions, rep *MaintenanceReport) error {
	slots := make(chan struct{}, opts.Parallel)
	for ctx.Err() == nil {
		jobs, err := s.claimJobs(ctx, q, opts)
		if err != nil {
			return err
		}
		if len(jobs) == 0 {
			break
		}
		if err := s.runJobs(ctx, jobs, opts, slots); err != nil {
			return err
		}
		rep.Reclaimed += len(jobs)
	}
	n, err := s.removeGoneConsumers(ctx, q, opts.Consumer, opts.GoneAfter)
	rep.Consumers += n
	if err != nil {
		return err
	}
	n, err = s.removeOrphans(ctx, q, q.progress, nil)
	rep.Orphans += n
	if err != nil {
		return err
	}
	n, err = s.removeOrphans(ctx, q, q.snapshots, func(job, author string) rueidis.Completed {
		uid, _ := strconv.ParseInt(author, 10, 64)
		return s.c.B().Del().Key(keyJobFollowers(uid, job)).Build()
	})
	rep.Orphans += n
	return err
}

// removeOrphans deletes the fields of the hash key (the progress or the
// snapshots of shard q, both keyed by job) whose job is no longer in q's
// stream: a worker that dies between acknowledging a job and tidying up
// leaves them behind. tidy, if set, gives a command that removes what
// the field stands for (the snapshot itself), run before the field goes.
func (s *Store) removeOrphans(ctx context.Context, q queue, key string, tidy func(job, value string) rueidis.Completed) (int, error) {
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
			entries, err := s.c.Do(ctx, b.Xrange().Key(q.stream).Start(job).End(job).Build()).AsXRange()
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

// removeGoneConsumers deletes from the consumer group the workers that
// have nothing pending and have not read for goneAfter: servers that
// stopped or were replaced, each of which would otherwise stay in the
// group for ever. Jobs a dead worker left pending are claimed first (by
// Maintain), so it is removed at a later round. self is never removed.
func (s *Store) removeGoneConsumers(ctx context.Context, q queue, self string, goneAfter time.Duration) (int, error) {
	b := s.c.B()
	infos, err := s.c.Do(ctx, b.XinfoConsumers().Key(q.stream).Group(deliveryGroup).Build()).ToArray()
	if err != nil {
		return 0, s.wrap("maintenance: consumers", err)
	}
	removed := 0
	for _, info := range infos {
		m, err := info.AsMap()
		if err != nil {
			return removed, s.wrap("maintenance: consumers", err)
		}
		nameMsg, pendingMsg, idleMsg := m["name"], m["pending"], m["idle"]
		name, _ := nameMsg.ToString()
		pending, _ := pendingMsg.AsInt64()
		idle, _ := idleMsg.AsInt64()
		if name == self || pending > 0 || time.Duration(idle)*time.Millisecond < goneAfter {
			continue
		}
		err = s.c.Do(ctx, b.XgroupDelconsumer().Key(q.stream).Group(deliveryGroup).Consumername(name).Build()).Error()
		if err != nil {
			return removed, s.wrap("maintenance: remove consumer", err)
		}
		s.log.Info("removed a delivery worker gone for good", "consumer", name, "idle", time.Duration(idle)*time.Millisecond)
		removed++
	}
	return removed, nil
}
