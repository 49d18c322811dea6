package redisserver

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// Supervisor keeps a redis-server running: if it dies, it is started
// again with the same options (address and data directory), so that its
// clients recover as they do from any Redis outage. It is how `retwis
// serve` keeps its embedded database.
type Supervisor struct {
	log    *slog.Logger
	cancel context.CancelFunc
	done   chan struct{} // closed when watch returns

	mu  sync.Mutex
	srv *Server // the current process
}

// Supervise watches srv and, whenever the process exits, starts it again,
// backing off while restarts fail, until Stop. It logs exits and restarts
// to log.
func Supervise(srv *Server, log *slog.Logger) *Supervisor {
	ctx, cancel := context.WithCancel(context.Background())
	sv := &Supervisor{log: log, cancel: cancel, done: make(chan struct{}), srv: srv}
	go sv.watch(ctx)
	return sv
}

// Server returns the server process last started: the running one, unless
// it has just exited.
func (sv *Supervisor) Server() *Server {
	sv.mu.Lock()
	defer sv.mu.Unlock()
	return sv.srv
}

// watch waits for the server to exit and restarts it, backing off while
// restarts fail.
func (sv *Supervisor) watch(ctx context.Context) {
	defer close(sv.done)
	const minDelay, maxDelay = 100 * time.Millisecond, 10 * time.Second
	delay := minDelay
	for {
		cur := sv.Server()
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
		next, err := Start(ctx, cur.Options())
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

// Stop ends supervision and stops the server, waiting for it to exit.
func (sv *Supervisor) Stop() {
	sv.cancel()
	<-sv.done
	sv.Server().Stop()
}
