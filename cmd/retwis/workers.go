package main

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/retwis/retwis/internal/cards"
	"github.com/retwis/retwis/internal/media"
	"github.com/retwis/retwis/internal/push"
	"github.com/retwis/retwis/internal/safehttp"
	"github.com/retwis/retwis/internal/store"
	"github.com/retwis/retwis/internal/store/deletion"
	"github.com/retwis/retwis/internal/store/delivery"
	pushstore "github.com/retwis/retwis/internal/store/push"
	"github.com/retwis/retwis/redlock"
)

// startWorkers runs the background work of a retwis server: delivering
// posts to followers, sending Web Push, previewing links (unless
// --link-previews=false), and the periodic maintenance, which the servers
// sharing a database take turns at under the lock of locks (with the
// sweep of the media med no longer uses). It returns a
// function that stops the workers and waits for them (delivery jobs in
// flight are given time to finish), so the database outlives them.
func startWorkers(st *store.Store, locks *redlock.Client, maintainEvery time.Duration, deliveryOpts delivery.Options,
	pushOpts pushWork, cardOpts cards.Options, med *media.Service, log *slog.Logger) (stop func()) {
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
	wg.Go(func() {
		opts := pushOpts.Options
		opts.Consumer, opts.Log = consumer, log
		subs := pushstore.New(st, pushstore.Options{AllowHTTP: pushOpts.allowHTTP})
		if err := push.New(st, subs, opts).Run(ctx); err != nil {
			log.Error("push worker stopped", "err", err)
		}
	})
	if deliveryOpts.LinkPreviews {
		wg.Go(func() {
			cardOpts.Consumer, cardOpts.Log, cardOpts.StoreImage = consumer, log, med.CardImage
			if err := cards.New(st.DB, cardOpts).Run(ctx); err != nil {
				log.Error("card worker stopped", "err", err)
			}
		})
	}
	upkeep := deliveryOpts
	upkeep.Consumer = consumer
	wg.Go(func() {
		runMaintenance(ctx, st, locks, maintainEvery, delivery.New(st, upkeep), deletion.New(st), med, log)
	})
	return func() {
		cancel()
		wg.Wait()
	}
}

// pushWork configures the Web Push worker.
type pushWork struct {
	push.Options
	allowHTTP bool // endpoints may be plain http
}

// pushOptions returns the push worker's options: the VAPID subject is
// the operator's contact address, or else the public URL; endpoints at
// private addresses, and plain http, only if --allow-private-addresses.
func (c *serveConfig) pushOptions() pushWork {
	public, _ := c.public() // checked by check
	return pushWork{allowHTTP: c.allowPrivate, Options: push.Options{
		Subject: cmp.Or(c.contact.String(), public.String()), Origin: public.String(),
		Client: safehttp.Client(safehttp.Options{AllowPrivate: c.allowPrivate, Timeout: 10 * time.Second}),
	}}
}

// cardOptions returns the card worker's options: pages at private
// addresses, and on any port, only if --allow-private-addresses.
func (c *serveConfig) cardOptions() cards.Options {
	return cards.Options{FetchOptions: cards.FetchOptions{AllowPrivate: c.allowPrivate,
		Client: safehttp.Client(safehttp.Options{AllowPrivate: c.allowPrivate, Timeout: 10 * time.Second})}}
}
