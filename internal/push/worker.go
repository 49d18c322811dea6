// Package push is the Web Push worker: it carries out the jobs of the
// push queue (schema.PushQueue, recorded by kernel.Push for each
// notification of a user with a subscription), sending each
// subscription whose alerts and policy let the notification through an
// encrypted message (RFC 8291) signed with the instance's VAPID key
// (RFC 8292), by webpush-go, through a client that reaches only public
// addresses (internal/safehttp) unless the operator allows others.
package push

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/retwis/retwis/internal/jobqueue"
	"github.com/retwis/retwis/internal/store"
	pushstore "github.com/retwis/retwis/internal/store/push"
	"github.com/retwis/retwis/internal/store/schema"
)

// Options configure a Worker.
type Options struct {
	// Consumer names this worker in the queue's consumer group (unique
	// per process).
	Consumer string
	// Subject is the VAPID subject, the contact a push service may write
	// to: an e-mail address or an https URL.
	Subject string
	// Origin is the instance's public URL, for the icon of a push.
	Origin string
	// Client sends the pushes (safehttp.Client).
	Client *http.Client
	// Sends is how many pushes one worker sends at once (8 when zero).
	Sends int
	// TTL is how long a push service keeps a push for a device that is
	// offline (a day when zero).
	TTL time.Duration
	// Log receives the pushes that failed for good.
	Log *slog.Logger
}

// Worker sends the pushes.
type Worker struct {
	st   *store.Store
	subs *pushstore.Store
	opts Options
	q    *jobqueue.Queue
}

// claimIdle is how long a job may stay with a worker before another takes
// it over (that worker is presumed dead): sends are bounded by the
// client's timeout, far shorter.
const claimIdle = time.Minute

// New returns a Worker on st, whose subscriptions subs keeps.
func New(st *store.Store, subs *pushstore.Store, opts Options) *Worker {
	opts.Sends = cmp.Or(opts.Sends, 8)
	opts.TTL = cmp.Or(opts.TTL, 24*time.Hour)
	if opts.Log == nil {
		opts.Log = slog.Default()
	}
	if opts.Client == nil {
		opts.Client = http.DefaultClient
	}
	w := &Worker{st: st, subs: subs, opts: opts}
	w.q = jobqueue.New(st.C, jobqueue.Options{Streams: Streams(), Group: schema.PushGroup, Consumer: opts.Consumer,
		Handle: w.handle, Batch: 16, ClaimIdle: claimIdle, Block: 5 * time.Second, Parallel: 2,
		Drain: 10 * time.Second, Log: opts.Log})
	return w
}

// Streams are the streams of the push queue.
func Streams() []string {
	streams := make([]string, schema.PushShards)
	for i := range streams {
		streams[i] = schema.PushQueue(i)
	}
	return streams
}

// goneAfter is how long a consumer of the push queue with no job pending
// has not read before a worker that starts removes it from the group:
// a live one reads every few seconds.
const goneAfter = 10 * time.Minute

// Run creates the consumer groups if need be and removes the workers
// gone for good (each server's start adds one), then sends pushes until
// ctx is cancelled.
func (w *Worker) Run(ctx context.Context) error {
	for _, s := range Streams() {
		if err := w.q.EnsureGroup(ctx, s); err != nil {
			return fmt.Errorf("push: consumer group on %s: %w", s, err)
		}
	}
	if _, err := w.q.RemoveGone(ctx, goneAfter); err != nil {
		w.opts.Log.Warn("push: removing gone workers", "err", err)
	}
	w.q.Run(ctx)
	return nil
}

// handle carries out jobs, up to Options.Sends at once: a job whose
// push failed for a reason worth retrying (the push service's 429 or
// 5xx, the network) is left pending, to be tried again with backoff
// until it is older than Options.TTL; the others are done.
func (w *Worker) handle(ctx context.Context, jobs []jobqueue.Job) error {
	var mu sync.Mutex
	failed := jobqueue.JobErrors{}
	sends := make(chan struct{}, w.opts.Sends)
	var wg sync.WaitGroup
	for _, j := range jobs {
		sends <- struct{}{}
		wg.Go(func() {
			defer func() { <-sends }()
			err := w.run(ctx, j)
			if err != nil && time.Since(queued(j)) > w.opts.TTL {
				w.opts.Log.Warn("push: given up", "job", j.ID, "err", err)
			} else if err != nil {
				mu.Lock()
				failed[j.Ref()] = err
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if len(failed) == 0 {
		return nil
	}
	return failed
}

// queued is when j was queued: the time in its entry id.
func queued(j jobqueue.Job) time.Time {
	ms, _, _ := strings.Cut(j.ID, "-")
	n, _ := strconv.ParseInt(ms, 10, 64)
	return time.UnixMilli(n)
}

// run sends the push of job j to each of its user's subscriptions that
// asks for it. A subscription that failed for good is dropped (404, 410)
// or logged; the job fails if one may succeed later.
func (w *Worker) run(ctx context.Context, j jobqueue.Job) error {
	uid, err1 := strconv.ParseInt(j.Fields[schema.PushUser], 10, 64)
	at, err2 := strconv.ParseInt(j.Fields[schema.PushAt], 10, 64)
	if err := errors.Join(err1, err2); err != nil {
		w.opts.Log.Warn("push: a job that is not one", "job", j.ID, "err", err)
		return nil
	}
	subs, err := w.subs.Subscriptions(ctx, uid)
	if err != nil || len(subs) == 0 {
		return err
	}
	msg, ok, err := w.message(ctx, uid, j.Fields[schema.PushNote], at)
	if err != nil || !ok {
		return err
	}
	var retry error
	for _, sub := range subs {
		if wanted, err := w.wanted(ctx, sub, msg); err != nil || !wanted {
			retry = errors.Join(retry, err)
			continue
		}
		retry = errors.Join(retry, w.send(ctx, sub, msg))
	}
	return retry
}
