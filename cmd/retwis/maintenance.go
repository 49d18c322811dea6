package main

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/retwis/retwis/internal/store"
	"github.com/retwis/retwis/internal/store/check"
	"github.com/retwis/retwis/internal/store/schema"
	"github.com/retwis/retwis/redlock"
)

// maintenanceTTL is the validity of the maintenance lock, extended while
// the upkeep runs.
const maintenanceTTL = 30 * time.Second

// runMaintenance does the periodic upkeep of the database every interval
// until ctx ends: store.Maintain, then a round of the consistency check
// (check.Round). Every `retwis serve` runs it, and a distributed lock
// makes sure that only one of them works at a time.
func runMaintenance(ctx context.Context, st *store.Store, locks *redlock.Client, every time.Duration,
	upkeep store.DeliveryUpkeep, log *slog.Logger) {
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
			rep, err := st.Maintain(ctx, upkeep)
			var checked, repaired int
			if err == nil { // then a round of the consistency check
				checked, repaired, err = check.Round(ctx, st)
			}
			if quiet := (store.MaintenanceReport{Refreshed: rep.Refreshed}); rep != quiet || repaired > 0 { // routine
				log.Info("maintenance", "reclaimed_jobs", rep.Reclaimed, "orphans_removed", rep.Orphans,
					"gone_workers_removed", rep.Consumers, "redelivered_posts", rep.Redelivered, "reindexed_posts", rep.Reindexed,
					"refreshed_entries", rep.Refreshed, "checked_keys", checked, "repaired", repaired,
					"resumed_deletions", rep.Deletions)
			}
			return err
		})
		if err != nil && !errors.Is(err, redlock.ErrNotAcquired) && ctx.Err() == nil {
			log.Warn("maintenance", "err", err)
		}
	}
}
