// Package storetest runs retwis's background work in tests: a delivery
// worker like the one every `retwis serve` runs, and a way to wait for it.
package storetest

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/retwis/retwis/internal/store"
)

// StartWorker runs a delivery worker against the Redis at url, with its
// own client (so that it does not disturb what a test counts), until the
// test ends.
func StartWorker(t testing.TB, url string, opts store.Options) {
	t.Helper()
	c, err := store.NewClient(url)
	if err != nil {
		t.Fatal(err)
	}
	opts.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	w, err := store.New(c, opts)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		w.RunDelivery(ctx, store.DeliveryOptions{Consumer: "test-worker", Block: 20 * time.Millisecond})
	}()
	t.Cleanup(func() { cancel(); <-done; w.Close() })
}

// Drain waits until every queued delivery job has been carried out.
func Drain(t testing.TB, st *store.Store) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		n, err := st.DeliveryBacklog(t.Context())
		if err == nil && n == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("delivery jobs were not carried out (%d left, %v)", n, err)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
