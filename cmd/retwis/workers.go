package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"sync"

	"github.com/retwis/retwis/internal/store"
)

// startWorkers runs the background work of a retwis server: delivering
// posts to followers. It returns a function that stops the workers and
// waits for them, so the database outlives them.
func startWorkers(st *store.Store, log *slog.Logger) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	host, _ := os.Hostname()
	var wg sync.WaitGroup
	wg.Go(func() {
		err := st.RunDelivery(ctx, store.DeliveryOptions{
			Consumer: fmt.Sprintf("%s-%d", host, os.Getpid()),
			Progress: func(p store.DeliveryProgress) {
				if p.Done%100_000 == 0 {
					log.Info("delivering", "post", p.Post, "kind", p.Kind, "followers_done", p.Done)
				}
			},
		})
		if err != nil {
			log.Error("delivery worker stopped", "err", err)
		}
	})
	return func() {
		cancel()
		wg.Wait()
	}
}
