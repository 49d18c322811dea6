package main

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/retwis/retwis/internal/redisserver"
)

// supervisor keeps the embedded redis-server running: if it dies, it is
// started again on the same socket and data directory, and the web server
// recovers by itself as it does from any Redis outage.
type supervisor struct {
	log    *slog.Logger
	cancel context.CancelFunc
	done   chan struct{} // closed when watch returns

	mu  sync.Mutex
	srv *redisserver.Server // the current process
}

func supervise(srv *redisserver.Server, log *slog.Logger) *supervisor {
	ctx, cancel := context.WithCancel(context.Background())
	sv := &supervisor{log: log, cancel: cancel, done: make(chan struct{}), srv: srv}
	go sv.watch(ctx)
	return sv
}

func (sv *supervisor) current() *redisserver.Server {
	sv.mu.Lock()
	defer sv.mu.Unlock()
	return sv.srv
}

// watch waits for the server to exit and restarts it, backing off while
// restarts fail.
func (sv *supervisor) watch(ctx context.Context) {
	defer close(sv.done)
	const minDelay, maxDelay = 100 * time.Millisecond, 10 * time.Second
	delay := minDelay
	for {
		cur := sv.current()
		select {
		case <-ctx.Done():
			return
		case <-cur.Done():
		}
		sv.log.Error("embedded redis-server exited; restarting it", "err", cur.Err(), "in", delay)
		select {
		case <-ctx.Done():
			return
		case <-time.After(delay):
		}
		next, err := redisserver.Start(ctx, cur.Options())
		if err != nil {
			sv.log.Error("restarting embedded redis-server failed", "err", err)
			delay = min(2*delay, maxDelay)
			continue
		}
		sv.mu.Lock()
		sv.srv = next
		sv.mu.Unlock()
		delay = minDelay
		sv.log.Info("embedded redis-server restarted")
	}
}

// Stop ends supervision and stops the server.
func (sv *supervisor) Stop() {
	sv.cancel()
	<-sv.done
	sv.current().Stop()
}
