package redlock

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync"
	"time"

	"github.com/redis/rueidis"
)

// Lua scripts run on each instance. Each touches the lock key and its
// fence key, which share a hash slot.
var (
	// raiseScript raises the fence counter to ARGV[2], if this client
	// still holds the lock.
	raiseScript = rueidis.NewLuaScript(`
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
if tonumber(redis.call('GET', KEYS[2]) or '0') < tonumber(ARGV[2]) then
  redis.call('SET', KEYS[2], ARGV[2])
end
return 1`)
	// releaseScript is the specification's compare-and-delete.
	releaseScript = rueidis.NewLuaScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0`)
	// extendScript is compare-and-extend, and it puts the lock back where
	// its key is missing (the instance restarted empty, or a replica that
	// lacked it took over), raising the fence counter to the lock's
	// token, ARGV[3], as acquiring would have: it returns 1 when extended,
	// 2 when put back, 0 when another holds the key there.
	extendScript = rueidis.NewLuaScript(`
local v = redis.call('GET', KEYS[1])
if v == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
if v then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
if tonumber(redis.call('GET', KEYS[2]) or '0') < tonumber(ARGV[3]) then
  redis.call('SET', KEYS[2], ARGV[3])
end
return 2`)
)

// Lock is an acquired lock. Its methods are not safe for concurrent use:
// extend it from one goroutine, and release it after that one is done.
type Lock struct {
	c          *Client
	name       string
	keys       [][]string // per instance: the lock key and the fence key there
	value      string
	token      int64
	until      time.Time
	extensions int
}

// Name returns the lock's name (its key on every instance).
func (l *Lock) Name() string { return l.name }

// Token returns the fencing token of this acquisition: larger than the
// token of every earlier holder of the same lock (see the package doc);
// 0 for a client with Options.NoFencing.
func (l *Lock) Token() int64 { return l.token }

// Until returns the end of the lock's validity: the holder must finish
// its work (or Extend) before then.
func (l *Lock) Until() time.Time { return l.until }

// reply is one instance's answer.
type reply struct {
	n   int64
	err error
}

// onAll runs f on every instance at once, all within one timeout, with
// the lock's keys there (keys[i] on instance i), and returns their
// answers in order.
func (c *Client) onAll(ctx context.Context, timeout time.Duration, keys [][]string, f func(context.Context, rueidis.Client, []string) (int64, error)) []reply {
	ctx, cancel := context.WithTimeout(ctx, timeout) // one deadline for all: they are asked at the same time
	defer cancel()
	ctx.Done() // made now, not under a lock by the first of the goroutines that all ask for it
	out := make([]reply, len(c.instances))
	ask := func(i int) { out[i].n, out[i].err = c.instances[i].call(ctx, keys[i], f) }
	var wg sync.WaitGroup
	last := len(c.instances) - 1
	for i := range last {
		wg.Go(func() { ask(i) })
	}
	ask(last) // in this goroutine: one instance needs no other
	wg.Wait()
	return out
}

// call runs f on the instance with the lock's keys there. A connection
// broken since the last call (the server restarted) fails its first
// command; the client then reconnects, so a failure that is not a reply
// is tried once more within the same deadline.
func (in *instance) call(ctx context.Context, keys []string, f func(context.Context, rueidis.Client, []string) (int64, error)) (int64, error) {
	var n int64
	var err error
	for try := 0; try < 2; try++ {
		var cl rueidis.Client
		if cl, err = in.get(ctx); err == nil {
			if n, err = f(ctx, cl, keys); err == nil {
				return n, nil
			}
		}
		if _, isReply := rueidis.IsRedisErr(err); isReply || ctx.Err() != nil {
			return n, err
		}
	}
	return n, err
}

// unreachable counts the instances that could not be reached at all:
// refused or dropped connections. A timeout is not counted: a slow
// instance is a failed attempt, worth retrying, not a dead one.
func unreachable(replies []reply) int {
	n := 0
	for _, r := range replies {
		if r.err == nil || errors.Is(r.err, context.DeadlineExceeded) {
			continue
		}
		if _, isReply := rueidis.IsRedisErr(r.err); !isReply {
			n++
		}
	}
	return n
}

// Lock acquires the lock name for ttl, retrying after random delays as
// Options say while ctx allows. It fails with ErrNotAcquired when the
// lock stays held by someone else (or instances are too slow to answer),
// at once with ErrQuorum when too many instances refuse connections for a
// majority, or with ctx's error (joined with ErrNotAcquired when an
// attempt before found the lock held, whether ctx ended between two
// attempts or during one).
func (c *Client) Lock(ctx context.Context, name string, ttl time.Duration) (*Lock, error) {
	if ttl <= 0 {
		return nil, errors.New("redlock: the TTL must be positive")
	}
	var busy error // what the last attempt found: the lock held
	for try := 0; ; try++ {
		l, err := c.try(ctx, name, ttl)
		if err != nil && busy != nil && ctx.Err() != nil {
			return nil, errors.Join(busy, err) // the time ran out during another try of a busy lock
		}
		if err == nil || !errors.Is(err, ErrNotAcquired) {
			return l, err // only a busy lock is worth another try
		}
		busy = err
		if c.opts.Retries >= 0 && try >= c.opts.Retries {
			return nil, err
		}
		d := c.opts.RetryDelay/2 + rand.N(c.opts.RetryDelay/2+1)
		select {
		case <-ctx.Done():
			return nil, errors.Join(err, ctx.Err())
		case <-time.After(d):
		}
	}
}

// TryLock makes a single attempt at acquiring the lock name for ttl,
// without retrying: for work that any of several processes may do, where
// a busy lock means that another is doing it.
func (c *Client) TryLock(ctx context.Context, name string, ttl time.Duration) (*Lock, error) {
	if ttl <= 0 {
		return nil, errors.New("redlock: the TTL must be positive")
	}
	return c.try(ctx, name, ttl)
}

// try makes one attempt at the algorithm's steps 1–5, plus the fencing
// round.
func (c *Client) try(ctx context.Context, name string, ttl time.Duration) (*Lock, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	keys, err := c.keys(name) // fails for a name whose keys cannot share a slot
	if err != nil {
		return nil, err
	}
	l := &Lock{c: c, name: name, keys: keys, value: newValue()}
	timeout := c.instanceTimeout(ttl)
	start := time.Now()
	got := c.onAll(ctx, timeout, keys, func(ctx context.Context, cl rueidis.Client, keys []string) (int64, error) {
		return acquire(ctx, cl, keys, l.value, ttl, !c.opts.NoFencing)
	})
	locked, token := 0, int64(0)
	for _, r := range got {
		if r.err == nil && r.n >= 0 {
			locked++
			token = max(token, r.n)
		}
	}
	if locked >= c.quorum() {
		if !c.opts.NoFencing {
			l.token = token
		}
		if c.opts.NoFencing || c.fenced(ctx, l, got, timeout) {
			if validity := ttl - time.Since(start) - c.drift(ttl); validity > 0 {
				l.until = start.Add(ttl - c.drift(ttl))
				return l, nil
			}
		}
	}
	l.release(context.WithoutCancel(ctx), timeout) // also where it seemed to fail
	if unreachable(got) > len(c.instances)-c.quorum() {
		return nil, ErrQuorum
	}
	return nil, ErrNotAcquired
}

// acquire sets the lock key on one instance if it is free, with a plain
// SET NX PX, and with fencing increments the instance's fence counter in
// the same round trip (the two commands pipelined, which the instance
// runs in order: the INCR follows a successful SET NX). It returns the
// counter so incremented (0 without fencing), or -1 when another holds
// the lock; the counter was then incremented all the same, which does no
// harm: counters need only grow.
func acquire(ctx context.Context, cl rueidis.Client, keys []string, value string, ttl time.Duration, fencing bool) (int64, error) {
	set := cl.B().Set().Key(keys[0]).Value(value).Nx().Px(ttl).Build()
	if !fencing {
		err := cl.Do(ctx, set).Error()
		if rueidis.IsRedisNil(err) {
			return -1, nil
		}
		return 0, err
	}
	res := cl.DoMulti(ctx, set, cl.B().Incr().Key(keys[1]).Build())
	if err := res[0].Error(); rueidis.IsRedisNil(err) {
		return -1, nil
	} else if err != nil {
		return 0, err
	}
	return res[1].AsInt64()
}

// fenced reports whether the lock's token is written to a majority: at once
// when a majority of the instances' counters reached it as they were
// locked (the usual case: counters that agree), or else by a second
// round that raises the counters to it.
func (c *Client) fenced(ctx context.Context, l *Lock, got []reply, timeout time.Duration) bool {
	at := 0
	for _, r := range got {
		if r.err == nil && r.n == l.token {
			at++
		}
	}
	return at >= c.quorum() || c.fence(ctx, l, timeout) >= c.quorum()
}

// fence raises the fence counters to the lock's token and returns on how
// many instances it succeeded.
func (c *Client) fence(ctx context.Context, l *Lock, timeout time.Duration) int {
	ok := 0
	for _, r := range c.onAll(ctx, timeout, l.keys, func(ctx context.Context, cl rueidis.Client, keys []string) (int64, error) {
		return raiseScript.Exec(ctx, cl, keys, []string{l.value, strconv.FormatInt(l.token, 10)}).AsInt64()
	}) {
		if r.err == nil && r.n == 1 {
			ok++
		}
	}
	return ok
}

// Unlock releases the lock on every instance. It never removes another
// holder's lock: only keys still holding this acquisition's value go. It
// fails with ErrQuorum only when it could not reach a majority; where it
// could not, the key expires by itself.
func (l *Lock) Unlock(ctx context.Context) error {
	replies := l.release(ctx, l.c.instanceTimeout(time.Until(l.until)))
	if unreachable(replies) > len(l.c.instances)-l.c.quorum() {
		return ErrQuorum
	}
	return nil
}

func (l *Lock) release(ctx context.Context, timeout time.Duration) []reply {
	return l.c.onAll(ctx, max(timeout, 5*time.Millisecond), l.keys, func(ctx context.Context, cl rueidis.Client, keys []string) (int64, error) {
		return releaseScript.Exec(ctx, cl, keys[:1], []string{l.value}).AsInt64()
	})
}

// Extend makes the lock valid for ttl from now, if it can be extended on
// a majority of instances within its current validity. It fails with
// ErrLost when the lock is no longer held (its validity has ended, or too
// many instances no longer hold it for a majority), with ErrExtendFailed
// when this attempt failed but the lock stays valid until Until, and
// with ErrTooManyExtensions after MaxExtensions successful calls.
//
// Where the lock's key is missing (an instance restarted empty, or a
// replica that had not received it took over), Extend puts it back, so
// that a lock held on a majority is soon held on every instance again
// and the next such loss leaves it a majority; an instance put back
// does not count towards the majority of this extension, and when too
// many instances had lost the key for the lock to be held, the keys are
// released again.
func (l *Lock) Extend(ctx context.Context, ttl time.Duration) error {
	if l.c.opts.MaxExtensions >= 0 && l.extensions >= l.c.opts.MaxExtensions {
		return ErrTooManyExtensions
	}
	start := time.Now()
	if !start.Before(l.until) {
		return fmt.Errorf("%w: its validity ended", ErrLost)
	}
	args := []string{l.value, strconv.FormatInt(ttl.Milliseconds(), 10), strconv.FormatInt(l.token, 10)}
	ok, gone := 0, 0
	for _, r := range l.c.onAll(ctx, l.c.instanceTimeout(ttl), l.keys, func(ctx context.Context, cl rueidis.Client, keys []string) (int64, error) {
		return extendScript.Exec(ctx, cl, keys, args).AsInt64()
	}) {
		switch {
		case r.err == nil && r.n == 1:
			ok++
		case r.err == nil:
			gone++ // the key had expired or vanished there (put back), or holds another value
		}
	}
	n, quorum := len(l.c.instances), l.c.quorum()
	now := time.Now()
	switch {
	case gone > n-quorum:
		l.release(context.WithoutCancel(ctx), l.c.instanceTimeout(ttl)) // what was put back
		return fmt.Errorf("%w: %d of %d instances no longer hold it", ErrLost, gone, n)
	case !now.Before(l.until):
		return fmt.Errorf("%w: its validity ended during the extension", ErrLost)
	case ok < quorum:
		return fmt.Errorf("%w: extended on %d of %d instances, %d needed", ErrExtendFailed, ok, n, quorum)
	case ttl-now.Sub(start)-l.c.drift(ttl) <= 0:
		return fmt.Errorf("%w: the extension took longer than its TTL", ErrExtendFailed)
	}
	l.extensions++
	l.until = start.Add(ttl - l.c.drift(ttl))
	return nil
}
