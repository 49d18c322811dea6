package snowflake

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/retwis/retwis/redlock"
)

// Lease finds a free worker number for gen and keeps it, so that no two
// generators sharing locks ever make ids with the same number. A number
// is a Redlock lock, named by name(n), tried in random order; gen may
// make ids only while the lock is valid (Generator.SetWorker with the
// lock's Until). The lock is extended every ttl/3, and a failed
// extension tried again every ttl/10 while the lock is valid; if it is
// lost, gen stops making ids until a number (the same one, if nobody
// else took it) is leased again.
//
// Lease returns once gen has its first number, or fails when every
// number is taken or the locks cannot be reached before ctx ends. The
// lease is kept until stop is called, which releases it.
func Lease(ctx context.Context, locks *redlock.Client, name func(n int) string, ttl time.Duration,
	gen *Generator, log *slog.Logger) (stop func(), err error) {
	l, w, err := acquire(ctx, locks, name, ttl, -1)
	if err != nil {
		return nil, err
	}
	gen.SetWorker(w, l.Until())
	log.Info("leased an id worker number", "worker", w)
	kctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	var wg sync.WaitGroup
	wg.Go(func() { keep(kctx, locks, name, ttl, gen, l, w, log) })
	return func() { cancel(); wg.Wait() }, nil
}

// acquire takes the lock of a free worker number, trying prefer first
// (if it is one: the number a generator just lost, which it takes back
// when nobody else has) and then every number once in random order, and
// again after a pause while the locks cannot be reached, until ctx ends.
func acquire(ctx context.Context, locks *redlock.Client, name func(int) string, ttl time.Duration,
	prefer int) (*redlock.Lock, int, error) {
	for {
		var lastErr error
		order := rand.Perm(Workers)
		if prefer >= 0 {
			order = append([]int{prefer}, order...)
		}
		for _, w := range order {
			l, err := locks.TryLock(ctx, name(w), ttl)
			if err == nil {
				return l, w, nil
			}
			if !errors.Is(err, redlock.ErrNotAcquired) {
				lastErr = err
				break // the locks are unreachable: pause, then try again
			}
		}
		if lastErr == nil {
			return nil, 0, fmt.Errorf("snowflake: all %d worker numbers are leased", Workers)
		}
		select {
		case <-ctx.Done():
			return nil, 0, fmt.Errorf("snowflake: lease a worker number: %w", errors.Join(ctx.Err(), lastErr))
		case <-time.After(ttl / 10):
		}
	}
}

// keep extends the lease on worker w until ctx ends, then releases it.
// A failed extension is tried again every tenth of the ttl while the
// lease is valid, so that a slow moment (a saturated CPU, a failover)
// does not cost the number. When the lock is lost, gen stops making ids
// at once and a number is leased again, w itself if it is free.
func keep(ctx context.Context, locks *redlock.Client, name func(int) string, ttl time.Duration,
	gen *Generator, l *redlock.Lock, w int, log *slog.Logger) {
	wait := ttl / 3
	for {
		select {
		case <-ctx.Done():
			gen.SetWorker(w, time.Now())
			l.Unlock(context.Background())
			return
		case <-time.After(wait):
		}
		err := l.Extend(ctx, ttl)
		switch {
		case err == nil:
			gen.SetWorker(w, l.Until())
			wait = ttl / 3
			continue
		case ctx.Err() != nil:
			continue
		case errors.Is(err, redlock.ErrExtendFailed): // still valid until its Until; gen stops then by itself
			log.Warn("could not extend the lease on the id worker number; trying again", "worker", w, "err", err)
			wait = max(time.Millisecond, min(time.Until(l.Until()), ttl/10))
			continue
		}
		gen.SetWorker(w, time.Now())
		log.Warn("lost the lease on an id worker number; leasing one again", "worker", w, "err", err)
		if l, w = reacquire(ctx, locks, name, ttl, w, log); l == nil {
			return
		}
		gen.SetWorker(w, l.Until())
		wait = ttl / 3
		log.Info("leased an id worker number", "worker", w)
	}
}

// reacquire leases a worker number again, lost first, trying every ttl
// until it succeeds; it returns a nil lock when ctx ends first.
func reacquire(ctx context.Context, locks *redlock.Client, name func(int) string, ttl time.Duration,
	lost int, log *slog.Logger) (*redlock.Lock, int) {
	for {
		l, w, err := acquire(ctx, locks, name, ttl, lost)
		if err == nil {
			return l, w
		}
		if ctx.Err() != nil {
			return nil, 0
		}
		log.Error("cannot lease an id worker number: no new posts or accounts until one is free", "err", err)
		select {
		case <-ctx.Done():
			return nil, 0
		case <-time.After(ttl):
		}
	}
}
