package redlock

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Do runs work while holding the lock name, for work that any of several
// processes may do: it makes a single attempt at the lock (TryLock) and
// fails with ErrNotAcquired when another holds it, which usually means
// that another is doing the work. Otherwise it runs work under Hold and
// releases the lock once work has returned; a lock that cannot be
// released expires by itself. Its error is that of Hold.
func (c *Client) Do(ctx context.Context, name string, ttl time.Duration, work func(ctx context.Context) error) error {
	l, err := c.TryLock(ctx, name, ttl)
	if err != nil {
		return err
	}
	defer l.Unlock(context.WithoutCancel(ctx))
	return l.Hold(ctx, ttl, work)
}

// Hold runs work while keeping l: it extends the lock by ttl every ttl/3,
// trying a failed extension again as long as the lock is valid. When the
// lock is lost, or it expires after its last allowed extension
// (Options.MaxExtensions), work's context is cancelled with a cause that
// wraps ErrLost, since another holder may now start the same work.
//
// Hold returns once work has returned and the extender has stopped, so
// that l can then be released (Hold does not release it): work's error,
// joined after the loss of the lock if it was lost.
func (l *Lock) Hold(ctx context.Context, ttl time.Duration, work func(ctx context.Context) error) error {
	if ttl <= 0 {
		return errors.New("redlock: the TTL must be positive")
	}
	wctx, cancel := context.WithCancelCause(ctx)
	var lost error
	extender := make(chan struct{})
	go func() {
		defer close(extender)
		if lost = l.keep(wctx, ttl); lost != nil {
			cancel(lost)
		}
	}()
	err := work(wctx)
	cancel(nil) // stops the extender
	<-extender  // before l is used again: a Lock is not for concurrent use
	if lost != nil {
		return errors.Join(lost, err)
	}
	return err
}

// keep extends l until ctx ends, and returns why the lock was lost, or nil.
func (l *Lock) keep(ctx context.Context, ttl time.Duration) error {
	t := time.NewTimer(ttl / 3)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
		next, err := l.extendOrWait(ctx, ttl)
		if ctx.Err() != nil {
			return nil // an attempt cut short because the work is over
		}
		if err != nil {
			return err
		}
		t.Reset(next)
	}
}

// extendOrWait makes one attempt at extending l and returns when to make
// the next, or an error wrapping ErrLost when the lock is lost.
func (l *Lock) extendOrWait(ctx context.Context, ttl time.Duration) (time.Duration, error) {
	err := l.Extend(ctx, ttl)
	left := time.Until(l.until)
	switch {
	case err == nil:
		return ttl / 3, nil
	case errors.Is(err, ErrLost):
		return 0, err
	case errors.Is(err, ErrTooManyExtensions) && left > 0:
		return left, nil // let it run out
	case errors.Is(err, ErrTooManyExtensions):
		return 0, fmt.Errorf("%w: it expired after %d extensions, the most allowed", ErrLost, l.extensions)
	case left > 0:
		return min(left, ttl/10), nil // still valid: try again
	}
	return 0, fmt.Errorf("%w: not extended on a majority within its validity (%w)", ErrLost, err)
}
