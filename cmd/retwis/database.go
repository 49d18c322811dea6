package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/redisconn"
	"github.com/retwis/retwis/internal/redisserver"
	"github.com/retwis/retwis/internal/store"
	"github.com/retwis/retwis/internal/store/kernel"
)

// database is the Redis that `retwis serve` uses: an external server or
// a redis-server child process.
type database struct {
	client   rueidis.Client
	url      string            // to connect to it
	opts     redisconn.Options // likewise
	embedded bool              // a redis-server child process: a lone master, by design
	closers  []func()          // run in reverse order by Close
	// invalidations hears what Redis invalidates in client's cache, for
	// the store's memos (kernel.Memo); other clients report to none.
	invalidations *kernel.Invalidations
}

// Close disconnects and stops whatever openDatabase started.
func (d *database) Close() {
	for i := len(d.closers) - 1; i >= 0; i-- {
		d.closers[i]()
	}
}

func openDatabase(ctx context.Context, cfg serveConfig, log *slog.Logger) (*database, error) {
	d := &database{}
	url := cfg.redisURL
	if url == "" {
		var err error
		if url, err = d.startEmbedded(ctx, cfg.dataDir, log); err != nil {
			d.Close()
			return nil, err
		}
		d.embedded = true
	}
	var opts redisconn.Options
	if cfg.store.ReplicaReads {
		opts.ReadFromReplica = kernel.ReadFromReplica
	}
	d.invalidations = new(kernel.Invalidations)
	withMemos := opts
	withMemos.Invalidations = d.invalidations
	c, err := connect(ctx, url, withMemos, log)
	if err != nil {
		d.Close()
		return nil, err
	}
	d.client, d.url, d.opts = c, url, opts
	d.closers = append(d.closers, c.Close)
	return d, nil
}

// startEmbedded runs redis-server with append-only persistence in dataDir,
// listening on a private unix socket.
func (d *database) startEmbedded(ctx context.Context, dataDir string, log *slog.Logger) (string, error) {
	dir, err := filepath.Abs(dataDir)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("data directory: %w", err)
	}
	unlock, err := lockDir(dir)
	if err != nil {
		return "", err
	}
	d.closers = append(d.closers, unlock)
	sockDir, err := os.MkdirTemp("", "retwis-")
	if err != nil {
		return "", err
	}
	d.closers = append(d.closers, func() { os.RemoveAll(sockDir) })
	srv, err := redisserver.Start(ctx, redisserver.Options{
		Dir: dir, Socket: filepath.Join(sockDir, "redis.sock"), Persist: true,
	})
	if errors.Is(err, redisserver.ErrNotInstalled) {
		return "", errors.New("redis-server is not installed (not on PATH): install it with apt-get install redis-server " +
			"(make run does that for you), or point retwis at a Redis with --redis or REDIS_URL")
	}
	if err != nil {
		return "", err
	}
	sv := redisserver.Supervise(srv, log)
	d.closers = append(d.closers, func() {
		log.Info("stopping embedded redis-server")
		sv.Stop()
	})
	log.Info("started embedded redis-server", "data_dir", dir, "url", srv.URL()) // the URL for retwis admin, check, spam
	return srv.URL(), nil
}

// lockDir takes an exclusive lock on dir so that two servers never run
// Redis on the same files.
func lockDir(dir string) (func(), error) {
	f, err := os.OpenFile(filepath.Join(dir, "retwis.lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("data directory: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		return nil, fmt.Errorf("data directory %s is in use by another retwis serve: give this one another --data-dir "+
			"(RETWIS_DATA_DIR), or the other's Redis with --redis (REDIS_URL, the url its log names)", dir)
	}
	return func() { f.Close() }, nil
}

// connect connects to Redis, waiting (with a growing delay) while it is
// unreachable so that retwis can start before its database.
func connect(ctx context.Context, url string, opts redisconn.Options, log *slog.Logger) (rueidis.Client, error) {
	delay := 250 * time.Millisecond
	for {
		c, err := redisconn.DialWith(url, opts)
		if err == nil {
			return c, nil
		}
		if retwis.ErrorKind(err) == retwis.Invalid {
			return nil, err
		}
		log.Warn("waiting for Redis", "err", err, "retry_in", delay)
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("gave up waiting for Redis: %w", err)
		case <-time.After(delay):
		}
		delay = min(2*delay, 10*time.Second)
	}
}

// openStore connects the tools that work on a database (bench, check,
// spam, admin) to the one at url, with the store options opts (zero: the
// defaults).
func openStore(url string, opts store.Options) (*store.Store, error) {
	c, err := redisconn.Dial(url)
	if err != nil {
		return nil, err
	}
	st, err := store.New(c, opts)
	if err != nil {
		c.Close()
		return nil, err
	}
	return st, nil
}
