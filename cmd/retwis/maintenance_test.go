package main

import (
	"errors"
	"io"
	"log/slog"
	"strconv"
	"testing"
	"time"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis/internal/redisconn"
	"github.com/retwis/retwis/internal/store"
	"github.com/retwis/retwis/internal/store/schema"
	"github.com/retwis/retwis/internal/testkit/must"
	"github.com/retwis/retwis/internal/testkit/redistest"
	"github.com/retwis/retwis/redlock"
)

// TestMaintenanceReclaimsStalledJob leaves a delivery job with a worker
// that died long ago; a running server's maintenance takes it over and
// finishes it.
func TestMaintenanceReclaimsStalledJob(t *testing.T) {
	t.Parallel()
	redis := redistest.Start(t)
	c, err := redisconn.Dial(redis.URL)
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.New(c, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.Migrate(t.Context(), slog.New(slog.NewTextHandler(io.Discard, nil))); err != nil {
		t.Fatal(err)
	}
	u, _, err := st.Register(t.Context(), "author", "password1")
	if err != nil {
		t.Fatal(err)
	}
	for f := range int64(3) {
		cmd := c.B().Zadd().Key("followers:{"+strconv.FormatInt(u.ID, 10)+"}").ScoreMember().ScoreMember(1, strconv.FormatInt(900+f, 10)).Build()
		if err := c.Do(t.Context(), cmd).Error(); err != nil {
			t.Fatal(err)
		}
	}
	p, err := st.CreatePost(t.Context(), u.ID, "stalled")
	if err != nil {
		t.Fatal(err)
	}
	// A worker "dead" read the job long ago and never finished it.
	cmd := func(args ...string) {
		if err := c.Do(t.Context(), c.B().Arbitrary(args...).Build()).Error(); err != nil {
			t.Fatalf("%v: %v", args, err)
		}
	}
	stream := jobStream(t, c)
	cmd("XREADGROUP", "GROUP", "deliverers", "dead", "COUNT", "1", "STREAMS", stream, ">")
	ids, err := c.Do(t.Context(), c.B().Arbitrary("XRANGE").Keys(stream).Args("-", "+").Build()).AsXRange()
	if err != nil || len(ids) != 1 {
		t.Fatalf("XRANGE: %v %v", ids, err)
	}
	cmd("XCLAIM", stream, "deliverers", "dead", "0", ids[0].ID, "IDLE", "600000")

	_, stop := startServe(t, serveConfig{addr: "127.0.0.1:0", redisURL: redis.URL, maintainEvery: 50 * time.Millisecond})
	defer stop()
	deadline := time.Now().Add(30 * time.Second) // generous: a loaded machine's rounds are slow
	for {
		head, err := c.Do(t.Context(), c.B().Lindex().Key("posts:{902}").Index(0).Build()).ToString()
		if err != nil && !rueidis.IsRedisNil(err) { // nil: nothing delivered yet
			t.Fatal(err)
		}
		if head == strconv.FormatInt(p.ID, 10) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the stalled job was not reclaimed and finished")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestMaintenanceLockServers: --lock-servers takes a list with a trailing
// comma, and refuses one with no URL.
func TestMaintenanceLockServers(t *testing.T) {
	redis := redistest.Start(t)
	locks, err := serverLocks(serveConfig{lockServers: redis.URL + ","}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer locks.Close()
	// Lock tries again, and a longer TTL gives the server longer to
	// answer each try, as a loaded machine may need.
	l, err := locks.Lock(t.Context(), "upkeep", 10*time.Second)
	if err != nil {
		t.Fatalf("lock on %q: %v", redis.URL+",", err)
	}
	l.Unlock(t.Context())
	if _, err := serverLocks(serveConfig{lockServers: " , "}, nil); err == nil {
		t.Fatal("a --lock-servers list with no URL was accepted")
	}
}

// TestMaintenanceLockBounded: the maintenance lock can be extended
// maintenanceMaxExtensions times, no more, so that a hung round loses it;
// the id lease, with idLeaseLocks, as long as the server runs.
func TestMaintenanceLockBounded(t *testing.T) {
	t.Parallel()
	redis := redistest.Start(t)
	locks := must.Value(serverLocks(serveConfig{lockServers: redis.URL}, nil))(t)
	defer locks.Close()
	for _, tc := range []struct {
		locks *redlock.Client
		name  string
		want  error // after maintenanceMaxExtensions extensions
	}{
		{locks, schema.MaintenanceLock, redlock.ErrTooManyExtensions},
		{locks.WithOptions(idLeaseLocks), schema.WorkerLock(0), nil},
	} {
		l := must.Value(tc.locks.Lock(t.Context(), tc.name, 10*time.Second))(t)
		// An extension whose instance was slower than its timeout (a
		// loaded machine) failed without counting: it is tried again.
		extend := func() (err error) {
			for range 5 {
				if err = l.Extend(t.Context(), 10*time.Second); !errors.Is(err, redlock.ErrExtendFailed) {
					return err
				}
			}
			return err
		}
		for i := range maintenanceMaxExtensions {
			if err := extend(); err != nil {
				t.Fatalf("%s: extension %d: %v", tc.name, i+1, err)
			}
		}
		if err := extend(); !errors.Is(err, tc.want) {
			t.Fatalf("%s: extension %d: %v; want %v", tc.name, maintenanceMaxExtensions+1, err, tc.want)
		}
		must.OK(t, l.Unlock(t.Context()))
	}
}

// jobStream returns the shard of the delivery queue that holds the one
// job queued.
func jobStream(t *testing.T, c rueidis.Client) string {
	t.Helper()
	keys, err := c.Do(t.Context(), c.B().Keys().Pattern("deliveries:*").Build()).AsStrSlice()
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		if n, err := c.Do(t.Context(), c.B().Xlen().Key(k).Build()).AsInt64(); err == nil && n == 1 {
			return k
		}
	}
	t.Fatalf("no shard of the queue holds the job: %v", keys)
	return ""
}
