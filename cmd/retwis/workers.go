package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/retwis/retwis/internal/store"
	"github.com/retwis/retwis/internal/store/deletion"
	"github.com/retwis/retwis/internal/store/delivery"
	"github.com/retwis/retwis/redlock"
)

// startWorkers runs the background work of a retwis server: delivering
// posts to followers, and the periodic maintenance, which the servers
// sharing a database take turns at under the lock of locks. It returns a
// function that stops the workers and waits for them (delivery jobs in
// flight are given time to finish), so the database outlives them.
func startWorkers(st *store.Store, locks *redlock.Client, maintainEvery time.Duration, deliveryOpts delivery.Options,
	log *slog.Logger) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	host, _ := os.Hostname()
	consumer := fmt.Sprintf("%s-%d", host, os.Getpid())
	var wg sync.WaitGroup
	wg.Go(func() {
		opts := deliveryOpts
		opts.Consumer = consumer
		opts.ClaimIdle = -1 // taking over stalled jobs is maintenance's job
		opts.Progress = func(p delivery.Progress) {
			if p.Done > 0 && p.Done%100_000 == 0 { // long jobs only
				log.Info("delivering", "post", p.Post, "kind", p.Kind, "followers_done", p.Done)
			}
		}
		err := delivery.New(st, opts).Run(ctx)
		if err != nil {
			log.Error("delivery worker stopped", "err", err)
		}
	})
	upkeep := deliveryOpts
	upkeep.Consumer = consumer
	wg.Go(func() { runMaintenance(ctx, st, locks, maintainEvery, delivery.New(st, upkeep), deletion.New(st), log) })
	return func() {
		cancel()
		wg.Wait()
	}
}
