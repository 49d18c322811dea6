package kernel_test

import (
	"bufio"
	"errors"
	"net"
	neturl "net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis/internal/redisconn"
	"github.com/retwis/retwis/internal/store/kernel"
	"github.com/retwis/retwis/internal/testkit/must"
	"github.com/retwis/retwis/internal/testkit/redistest"
)

// TestWaitsForEveryReplica checks on a real master with two replicas
// that a write waits for both although Options.WaitReplicas asks for one
// (the master's slow log records every WAIT with what it asked); that a
// replica that freezes makes writes fail for a moment, then lets them go
// on with the other; and that once a replica is stopped, writes go on
// with the one left rather than each waiting for the whole timeout.
func TestWaitsForEveryReplica(t *testing.T) {
	t.Parallel()
	master, replicas := redistest.Replicas(t, 2)
	w := writer{t: t, asked: watchWaits(t, master.URL),
		db: openDB(t, master.URL, kernel.Options{WaitReplicas: 1, WaitTimeout: 500 * time.Millisecond})}

	must.OK(t, w.write())
	if n := w.asked.lastAsked(2); n != 2 {
		t.Fatalf("a write asked WAIT %d; want 2, every replica", n)
	}
	replicas[0].Pause(t)
	w.until(1, redisconn.ReplicaLag+3*time.Second, "a replica froze", true)
	replicas[0].Resume(t)
	w.until(2, 3*time.Second, "the frozen replica came back", false)
	replicas[1].Stop(t)
	w.until(1, 2*time.Second, "a replica stopped", false)
}

// writer writes new values of a key, waiting for replicas.
type writer struct {
	t     *testing.T
	db    *kernel.DB
	asked *waits
	n     int
}

// write sets the key to a new value and returns the write's error.
func (w *writer) write() error {
	w.n++
	res := w.db.Replicated(w.t.Context(), func() rueidis.Commands {
		return rueidis.Commands{w.db.C.B().Set().Key("k").Value(strconv.Itoa(w.n)).Build()}
	}, "k")
	return res[0].Error()
}

// until writes until a write succeeds without waiting for the timeout,
// having asked for replicas, within within of what happened; it fails
// the test if none does, or if a write fails and mayFail does not allow
// it.
func (w *writer) until(replicas int, within time.Duration, what string, mayFail bool) {
	w.t.Helper()
	for start := time.Now(); ; {
		began := time.Now()
		err := w.write()
		if err != nil && (!mayFail || !errors.Is(err, kernel.ErrNotReplicated)) {
			w.t.Fatalf("after %s, a write failed: %v", what, err)
		}
		if err == nil && time.Since(began) < w.db.Opts.WaitTimeout/2 && w.asked.lastAsked(replicas) == replicas {
			return
		}
		if time.Since(start) > within {
			w.t.Fatalf("%s %v ago and writes do not ask WAIT %d without waiting for the timeout (last: WAIT %d, %v)",
				what, within, replicas, w.asked.lastAsked(replicas), err)
		}
	}
}

// waits follows the WAITs a server receives (MONITOR) and keeps how
// many replicas the last one asked for.
type waits struct {
	t    *testing.T
	last atomic.Int64
}

// watchWaits follows the WAITs the server at url receives until the test
// ends.
func watchWaits(t *testing.T, url string) *waits {
	t.Helper()
	conn := must.Value(net.Dial("tcp", must.Value(neturl.Parse(url))(t).Host))(t)
	t.Cleanup(func() { conn.Close() })
	must.Value(conn.Write([]byte("MONITOR\r\n")))(t)
	lines := bufio.NewScanner(conn)
	if !lines.Scan() || lines.Text() != "+OK" {
		t.Fatalf("MONITOR: %q %v", lines.Text(), lines.Err())
	}
	w := &waits{t: t}
	go func() {
		for lines.Scan() { // +1764200000.123456 [0 127.0.0.1:5000] "WAIT" "2" "500"
			_, cmd, _ := strings.Cut(lines.Text(), "] ")
			if args := strings.Fields(cmd); len(args) == 3 && args[0] == `"WAIT"` {
				n, _ := strconv.Atoi(strings.Trim(args[1], `"`))
				w.last.Store(int64(n))
			}
		}
	}()
	return w
}

// lastAsked returns how many replicas the last WAIT asked for, once the
// monitor has seen it (a WAIT reaches it before its answer reaches the
// writer, but the monitor's line may be read after).
func (w *waits) lastAsked(want int) int {
	for deadline := time.Now().Add(time.Second); w.last.Load() != int64(want) && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
	return int(w.last.Load())
}
