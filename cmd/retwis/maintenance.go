package main

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/retwis/retwis/internal/store"
	"github.com/retwis/retwis/redlock"
)

const (
	maintenanceLock = "retwis:maintenance"
	maintenanceTTL  = 30 * time.Second
)

// runMaintenance does the periodic upkeep of the database every interval
// until ctx ends. Every `retwis serve` runs it, and a distributed lock
// makes sure that only one of them works at a time.
func runMaintenance(ctx context.Context, st *store.Store, locks *redlock.Client, every time.Duration, consumer string, log *slog.Logger) {
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		err := guarded(ctx, locks, maintenanceLock, maintenanceTTL, log, func(ctx context.Context) error {
			rep, err := st.Maintain(ctx, store.DeliveryOptions{Consumer: consumer})
			if rep.Reclaimed > 0 || rep.Orphans > 0 {
				log.Info("maintenance", "reclaimed_jobs", rep.Reclaimed, "orphan_progress", rep.Orphans)
			}
			return err
		})
		if err != nil && ctx.Err() == nil {
			log.Warn("maintenance", "err", err)
		}
	}
}

// guarded runs work while holding the lock name, if it is free: a held
// lock means another process is doing the work, which is not an error.
// The lock is extended while work runs; if it is lost, work's context is
// cancelled, since another process may now start the same work.
func guarded(ctx context.Context, locks *redlock.Client, name string, ttl time.Duration, log *slog.Logger, work func(context.Context) error) error {
	l, err := locks.TryLock(ctx, name, ttl)
	if errors.Is(err, redlock.ErrNotAcquired) {
		return nil
	}
	if err != nil {
		return err
	}
	defer l.Unlock(context.WithoutCancel(ctx))
	wctx, cancel := context.WithCancel(ctx)
	extender := make(chan struct{})
	defer func() { cancel(); <-extender }() // before Unlock: a Lock is not for concurrent use
	go func() {
		defer close(extender)
		tick := time.NewTicker(ttl / 3)
		defer tick.Stop()
		for {
			select {
			case <-wctx.Done():
				return
			case <-tick.C:
				if err := l.Extend(wctx, ttl); err != nil {
					if wctx.Err() == nil {
						log.Warn("could not keep the lock; stopping the work it guards", "lock", name, "err", err)
					}
					cancel()
					return
				}
			}
		}
	}()
	return work(wctx)
}
