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
// nil, is told of every call. Closing the returned client closes client.
func Bounded(client rueidis.Client, timeout, block time.Duration, observe Observer) rueidis.Client {
	return boundedClient{Client: client, timeout: timeout, block: block, observe: observe}
}

type boundedClient struct {
	rueidis.Client
	timeout time.Duration
	block   time.Duration
	observe Observer
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
	ctx, cancel := c.bounded(ctx, cmd.IsBlock())
	defer cancel()
	defer c.done("do", time.Now())
	return c.Client.Do(ctx, cmd)
}

func (c boundedClient) DoMulti(ctx context.Context, cmds ...rueidis.Completed) []rueidis.RedisResult {
	blocking := false
	for _, cmd := range cmds {
		blocking = blocking || cmd.IsBlock()
	}
	ctx, cancel := c.bounded(ctx, blocking)
	defer cancel()
	defer c.done("pipeline", time.Now())
	return c.Client.DoMulti(ctx, cmds...)
}

func (c boundedClient) DoCache(ctx context.Context, cmd rueidis.Cacheable, ttl time.Duration) rueidis.RedisResult {
	ctx, cancel := c.bounded(ctx, false)
	defer cancel()
	defer c.done("cached", time.Now())
	return c.Client.DoCache(ctx, cmd, ttl)
}

func (c boundedClient) DoMultiCache(ctx context.Context, cmds ...rueidis.CacheableTTL) []rueidis.RedisResult {
	ctx, cancel := c.bounded(ctx, false)
	defer cancel()
	defer c.done("cached_pipeline", time.Now())
	return c.Client.DoMultiCache(ctx, cmds...)
}
