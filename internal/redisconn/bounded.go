package redisconn

import (
	"context"
	"time"

	"github.com/redis/rueidis"
)

// DefaultCommandTimeout is how long a Bounded client waits by default for
// Redis to answer a command (or a pipeline), unless the caller's context
// ends sooner: a frozen node (a stalled machine, a network split) then
// costs a request about a second, not its whole deadline. Blocking
// commands (XREADGROUP with BLOCK, WAIT) wait for as long as they ask,
// plus as much.
const DefaultCommandTimeout = time.Second

// Observer is told of each call a Bounded client makes: its kind ("do",
// "pipeline", "cached", "cached_pipeline") and when it began, once it has
// returned. Metrics use it to time calls.
type Observer func(call string, start time.Time)

// Bounded returns a client that applies timeout to every call of client,
// and block plus timeout to blocking commands (block is the longest any
// blocking command of the caller asks Redis to wait). observe, if not
// nil, is told of every call. breakers, if not nil, fail at once the
// commands bound for a master whose circuit is open, and learn from
// every call whether its master answers; in a pipeline, only the
// commands bound for such a master fail. Closing the returned client
// closes client.
func Bounded(client rueidis.Client, timeout, block time.Duration, observe Observer, breakers *Breakers) rueidis.Client {
	return boundedClient{Client: client, timeout: timeout, block: block, observe: observe, breakers: breakers}
}

type boundedClient struct {
	rueidis.Client
	timeout  time.Duration
	block    time.Duration
	observe  Observer
	breakers *Breakers
}

// done tells the observer of a call that began at start.
func (c boundedClient) done(call string, start time.Time) {
	if c.observe != nil {
		c.observe(call, start)
	}
}

func (c boundedClient) bounded(ctx context.Context, blocking bool) (context.Context, context.CancelFunc) {
	if blocking {
		return context.WithTimeout(ctx, c.block+c.timeout)
	}
	return context.WithTimeout(ctx, c.timeout)
}

func (c boundedClient) Do(ctx context.Context, cmd rueidis.Completed) rueidis.RedisResult {
	defer c.done("do", time.Now())
	addr := c.breakers.route(cmd.Slot())
	if err := c.breakers.allow(addr); err != nil {
		return rueidis.NewErrorResult(err)
	}
	bctx, cancel := c.bounded(ctx, cmd.IsBlock())
	defer cancel()
	res := c.Client.Do(bctx, cmd)
	c.breakers.record(addr, outcomeOf(ctx, res))
	return res
}

func (c boundedClient) DoMulti(ctx context.Context, cmds ...rueidis.Completed) []rueidis.RedisResult {
	defer c.done("pipeline", time.Now())
	blocking := false
	for _, cmd := range cmds {
		blocking = blocking || cmd.IsBlock()
	}
	bctx, cancel := c.bounded(ctx, blocking)
	defer cancel()
	return gated(ctx, c.breakers, cmds, (*rueidis.Completed).Slot, func(cmds ...rueidis.Completed) []rueidis.RedisResult {
		return c.Client.DoMulti(bctx, cmds...)
	})
}

func (c boundedClient) DoCache(ctx context.Context, cmd rueidis.Cacheable, ttl time.Duration) rueidis.RedisResult {
	defer c.done("cached", time.Now())
	addr := c.breakers.route(cmd.Slot())
	if err := c.breakers.allow(addr); err != nil {
		return rueidis.NewErrorResult(err)
	}
	bctx, cancel := c.bounded(ctx, false)
	defer cancel()
	res := c.Client.DoCache(bctx, cmd, ttl)
	c.breakers.record(addr, outcomeOf(ctx, res))
	return res
}

func (c boundedClient) DoMultiCache(ctx context.Context, cmds ...rueidis.CacheableTTL) []rueidis.RedisResult {
	defer c.done("cached_pipeline", time.Now())
	bctx, cancel := c.bounded(ctx, false)
	defer cancel()
	slot := func(c *rueidis.CacheableTTL) uint16 { return c.Cmd.Slot() }
	return gated(ctx, c.breakers, cmds, slot, func(cmds ...rueidis.CacheableTTL) []rueidis.RedisResult {
		return c.Client.DoMultiCache(bctx, cmds...)
	})
}

// gated sends the commands of a pipeline through send, but for those
// bound for a master whose circuit is open, which fail at once, and tells
// breakers what became of each master's commands (ctx is the caller's).
// When every master is allowed, the common case, cmds are sent as they
// are.
func gated[T any](ctx context.Context, breakers *Breakers, cmds []T, slot func(*T) uint16,
	send func(...T) []rueidis.RedisResult) []rueidis.RedisResult {
	if breakers == nil {
		return send(cmds...)
	}
	addrs := make([]string, len(cmds))
	var masters masterStates // by master, decided once a pipeline
	refused := 0
	routes := breakers.routes()
	for i := range cmds {
		addrs[i] = routes.master(slot(&cmds[i]))
		st := masters.of(addrs[i])
		if !st.decided {
			st.err, st.decided = breakers.allow(addrs[i]), true
		}
		if st.err != nil {
			refused++
		}
	}
	var out []rueidis.RedisResult
	var at []int // the index in cmds of each command sent
	switch {
	case refused == len(cmds):
		out = make([]rueidis.RedisResult, len(cmds))
	case refused == 0:
		out = send(cmds...)
	default:
		out = make([]rueidis.RedisResult, len(cmds))
		sent := make([]T, 0, len(cmds)-refused)
		for i := range cmds {
			if masters.of(addrs[i]).err == nil {
				sent, at = append(sent, cmds[i]), append(at, i)
			}
		}
		for j, res := range send(sent...) {
			out[at[j]] = res
		}
	}
	for i := range cmds {
		st := masters.of(addrs[i])
		if st.err != nil {
			out[i] = rueidis.NewErrorResult(st.err)
			continue
		}
		st.outcome, st.sent = max(st.outcome, outcomeOf(ctx, out[i])), true
	}
	for _, st := range masters {
		if st.sent {
			breakers.record(st.addr, st.outcome)
		}
	}
	return out
}

// masterState is what gated decided for one master of a pipeline, and
// what became of the commands sent to it.
type masterState struct {
	addr    string
	decided bool  // err is breakers.allow's
	err     error // not nil: the master's circuit is open, its commands refused
	sent    bool  // outcome is that of the master's commands
	outcome outcome
}

// masterStates are the masters of one pipeline: few (one, on a single
// server), so a slice searched in order, not a map made per pipeline.
type masterStates []masterState

// of returns the state of the master at addr, added if new.
func (m *masterStates) of(addr string) *masterState {
	for i := range *m {
		if (*m)[i].addr == addr {
			return &(*m)[i]
		}
	}
	*m = append(*m, masterState{addr: addr})
	return &(*m)[len(*m)-1]
}
