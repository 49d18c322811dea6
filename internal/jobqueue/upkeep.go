package jobqueue

import (
	"context"
	"fmt"
	"time"
)

// Reclaim takes over the jobs of every stream that workers have left
// idle for idle and carries them out, until none is left; it returns how
// many it did. Run by one server at a time, it finishes the work of dead
// workers when Run does not (ClaimIdle ≤ 0).
func (q *Queue) Reclaim(ctx context.Context, idle time.Duration) (int, error) {
	done := 0
	for _, stream := range q.opts.Streams {
		for ctx.Err() == nil {
			jobs, err := q.claim(ctx, stream, idle)
			if err != nil {
				return done, err
			}
			if len(jobs) == 0 {
				break
			}
			if failed := q.runJobs(ctx, jobs); failed != nil {
				return done + len(jobs) - len(failed), failed
			}
			done += len(jobs)
		}
	}
	return done, nil
}

// RemoveGone deletes from the consumer group of every stream the workers
// that have nothing pending and have not read for goneAfter: servers that
// stopped or were replaced, each of which would otherwise stay in the
// group for ever. Jobs a dead worker left pending are reclaimed first, so
// it is removed at a later round. This worker is never removed. It
// returns how many it removed.
func (q *Queue) RemoveGone(ctx context.Context, goneAfter time.Duration) (int, error) {
	removed := 0
	for _, stream := range q.opts.Streams {
		n, err := q.removeGone(ctx, stream, goneAfter)
		removed += n
		if err != nil {
			return removed, err
		}
	}
	return removed, nil
}

func (q *Queue) removeGone(ctx context.Context, stream string, goneAfter time.Duration) (int, error) {
	b := q.c.B()
	infos, err := q.c.Do(ctx, b.XinfoConsumers().Key(stream).Group(q.opts.Group).Build()).ToArray()
	if err != nil {
		return 0, fmt.Errorf("jobqueue: consumers of %s: %w", stream, err)
	}
	removed := 0
	for _, info := range infos {
		m, err := info.AsMap()
		if err != nil {
			return removed, fmt.Errorf("jobqueue: consumers of %s: %w", stream, err)
		}
		nameMsg, pendingMsg, idleMsg := m["name"], m["pending"], m["idle"]
		name, _ := nameMsg.ToString()
		pending, _ := pendingMsg.AsInt64()
		idle, _ := idleMsg.AsInt64()
		if name == q.opts.Consumer || pending > 0 || time.Duration(idle)*time.Millisecond < goneAfter {
			continue
		}
		err = q.c.Do(ctx, b.XgroupDelconsumer().Key(stream).Group(q.opts.Group).Consumername(name).Build()).Error()
		if err != nil {
			return removed, fmt.Errorf("jobqueue: remove consumer %s: %w", name, err)
		}
		q.log.Info("removed a worker gone for good", "stream", stream, "consumer", name, "idle", time.Duration(idle)*time.Millisecond)
		removed++
	}
	return removed, nil
}
