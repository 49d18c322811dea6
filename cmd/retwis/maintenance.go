package main

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/retwis/retwis/internal/media"
	"github.com/retwis/retwis/internal/store"
	"github.com/retwis/retwis/internal/store/deletion"
	"github.com/retwis/retwis/internal/store/delivery"
	"github.com/retwis/retwis/internal/store/schema"
	"github.com/retwis/retwis/internal/store/upkeep"
	"github.com/retwis/retwis/redlock"
)

// maintenanceTTL is the validity of the maintenance lock, extended every
// third of it while the upkeep runs.
const maintenanceTTL = 30 * time.Second

// maintenanceMaxExtensions bounds a round of upkeep to about 10.5
// minutes (maintenanceTTL × (1 + 60/3)): a round that hangs then loses
// the lock, its context is cancelled, and another server can take over,
// as Redlock's liveness rule asks. Every step of a round is bounded (a
// batch of backfills, of deletions, of the check) but one, finishing a
// dead worker's delivery jobs, which for a celebrity's post can take
// minutes; a round cut short loses nothing, since every job records its
// progress and the next round, a lock taken afresh, carries it on.
const maintenanceMaxExtensions = 60

// runMaintenance does the periodic upkeep of the database every interval
// until ctx ends: an upkeep.Round, through the delivery worker d and the
// deleter del, then the sweep of the files of media that nothing uses
// any longer (med). Every `retwis serve` runs it, and a distributed lock
// makes sure that only one of them works at a time.
func runMaintenance(ctx context.Context, st *store.Store, locks *redlock.Client, every time.Duration,
	d *delivery.Worker, del *deletion.Deleter, med *media.Service, log *slog.Logger) {
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		// A held lock means another server is doing the upkeep.
		err := locks.Do(ctx, schema.MaintenanceLock, maintenanceTTL, func(ctx context.Context) error {
			rep, err := upkeep.Round(ctx, st, d, del)
			swept, serr := med.Sweep(ctx, time.Now())
			if quiet := (upkeep.Report{Refreshed: rep.Refreshed, Checked: rep.Checked}); rep != quiet || swept > 0 { // routine
				log.Info("maintenance", "reclaimed_jobs", rep.Reclaimed, "orphans_removed", rep.Orphans,
					"gone_workers_removed", rep.Consumers, "redelivered_posts", rep.Redelivered, "redelivered_boosts", rep.RedeliveredBoosts, "completed_follows", rep.Follows, "posts_taken_back", rep.TakenBack, "scheduled_published", rep.Scheduled, "reindexed_posts", rep.Reindexed,
					"refreshed_entries", rep.Refreshed, "checked_keys", rep.Checked, "repaired", rep.Repaired,
					"resumed_deletions", rep.Deletions, "trimmed_history", rep.Trimmed, "media_removed", swept)
			}
			return errors.Join(err, serr)
		})
		if err != nil && !errors.Is(err, redlock.ErrNotAcquired) && ctx.Err() == nil {
			log.Warn("maintenance", "err", err)
		}
	}
}
