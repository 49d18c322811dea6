package store

import (
	"context"
	"time"

	"github.com/redis/rueidis"
)

// commandTimeout bounds how long the store waits for Redis to answer a
// command (or a pipeline), unless the caller's context ends sooner: a
// frozen node (a stalled machine, a network split) then costs a request
// about a second, not its whole deadline. Blocking commands (XREADGROUP
// with BLOCK, WAIT) wait for as long as they ask, plus as much.
const commandTimeout = time.Second

// deadlineClient applies commandTimeout to every call of the client it
// wraps, and block plus commandTimeout to blocking commands.
type deadlineClient struct {
	rueidis.Client
	block   time.Duration // the longest a blocking command of the store asks to wait
	metrics *metrics      // times each call; nil records nothing
}

func (c deadlineClient) bounded(ctx context.Context, blocking bool) (context.Context, context.CancelFunc) {
	if blocking {
		return context.WithTimeout(ctx, c.block+commandTimeout)
	}
	return context.WithTimeout(ctx, commandTimeout)
}

func (c deadlineClient) Do(ctx context.Context, cmd rueidis.Completed) rueidis.RedisResult {
	ctx, cancel := c.bounded(ctx, cmd.IsBlock())
	defer cancel()
	defer c.metrics.call("do", time.Now())
	return c.Client.Do(ctx, cmd)
}

func (c deadlineClient) DoMulti(ctx context.Context, cmds ...rueidis.Completed) []rueidis.RedisResult {
	blocking := false
	for _, cmd := range cmds {
		blocking = blocking || cmd.IsBlock()
	}
	ctx, cancel := c.bounded(ctx, blocking)
	defer cancel()
	defer c.metrics.call("pipeline", time.Now())
	return c.Client.DoMulti(ctx, cmds...)
}

func (c deadlineClient) DoCache(ctx context.Context, cmd rueidis.Cacheable, ttl time.Duration) rueidis.RedisResult {
	ctx, cancel := c.bounded(ctx, false)
	defer cancel()
	defer c.metrics.call("cached", time.Now())
	return c.Client.DoCache(ctx, cmd, ttl)
}

func (c deadlineClient) DoMultiCache(ctx context.Context, cmds ...rueidis.CacheableTTL) []rueidis.RedisResult {
	ctx, cancel := c.bounded(ctx, false)
	defer cancel()
	defer c.metrics.call("cached_pipeline", time.Now())
	return c.Client.DoMultiCache(ctx, cmds...)
}
