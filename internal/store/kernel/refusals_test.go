package kernel_test

import (
	"context"
	"net"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/rueidis"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/redisconn"
	"github.com/retwis/retwis/internal/redisserver"
	"github.com/retwis/retwis/internal/store/kernel"
	"github.com/retwis/retwis/internal/testkit/must"
	"github.com/retwis/retwis/internal/testkit/redistest"
)

// refusal makes a real Redis refuse a write: it returns the URL of the
// server to write to, set up so that it refuses, and what to do once
// the store is connected, if anything (stop the server); and the
// command, if not a write (SET k v).
type refusal func(t *testing.T) (url string, fault func(), cmd command)

// command builds the command a refusal is about.
type command func(b rueidis.Builder) rueidis.Completed

// set is the write refused unless a refusal says otherwise.
func set(b rueidis.Builder) rueidis.Completed { return b.Set().Key("k").Value("v").Build() }

// TestRefusalsAreOutages has a real redis-server refuse a write in each
// way Redis refuses one for now, or not answer it at all, and checks
// that the store calls each an outage (Unavailable, which the interfaces
// answer with 503 and Retry-After), never a bug, and counts it in
// retwis_redis_errors_total under its own class.
func TestRefusalsAreOutages(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		class   string // the label of retwis_redis_errors_total
		refusal string // redisconn.Refusal of the error, "" for no answer
		setup   refusal
	}{
		{"noreplicas", "noreplicas", configured("min-replicas-to-write", "1")},
		{"full", "oom", configured("maxmemory-policy", "noeviction", "maxmemory", "1")},
		{"readonly", "readonly", func(t *testing.T) (string, func(), command) {
			_, replica := redistest.Replicated(t)
			return replica.URL, nil, set
		}},
		{"masterdown", "masterdown", masterDown},
		{"busy", "busy", busy},
		{"clusterdown", "clusterdown", clusterFailed},
		// Redis replies LOADING only while it loads a dataset, and
		// TRYAGAIN only to a multi-key command during a slot's
		// migration: their replies come from a script, through the same
		// protocol.
		{"loading", "loading", scripted("LOADING Redis is loading the dataset in memory")},
		{"tryagain", "tryagain", scripted("TRYAGAIN Multiple keys request during rehashing of slot")},
		{"unavailable", "", frozen},
		{"unavailable", "", stopped},
	} {
		t.Run(tc.class+"/"+tc.refusal, func(t *testing.T) {
			t.Parallel()
			url, fault, cmd := tc.setup(t)
			reg := prometheus.NewRegistry()
			db := openDB(t, url, kernel.Options{Metrics: reg, CommandTimeout: 500 * time.Millisecond})
			// Connected before the fault, on the connection the write takes
			// (by its key's slot); a failure here is not counted.
			db.C.Do(t.Context(), db.C.B().Get().Key("k").Build())
			if fault != nil {
				fault()
			}
			err := db.Wrap("write", db.C.Do(t.Context(), cmd(db.C.B())).Error())
			if got := redisconn.Refusal(err); got != tc.refusal || (got == "" && redisconn.IsReply(err)) {
				t.Fatalf("the write failed with %v, a refusal of class %q; want %q", err, got, tc.refusal)
			}
			if retwis.ErrorKind(err) != retwis.Unavailable {
				t.Fatalf("%v is of kind %v; want unavailable", err, retwis.ErrorKind(err))
			}
			// A scrape reads gauges from Redis, which fail the same way.
			if n := failures(t, reg); n[tc.class] < 1 || len(n) != 1 {
				t.Fatalf("retwis_redis_errors_total = %v; want only kind %q", n, tc.class)
			}
		})
	}
}

// openDB returns a DB on the Redis at url, closed when t ends.
func openDB(t *testing.T, url string, opts kernel.Options) *kernel.DB {
	t.Helper()
	c := must.Value(redisconn.DialWith(url, redisconn.Options{}))(t)
	db := must.Value(kernel.New(c, opts))(t)
	t.Cleanup(db.Close)
	return db
}

// failures returns retwis_redis_errors_total by kind.
func failures(t *testing.T, reg *prometheus.Registry) map[string]float64 {
	t.Helper()
	out := map[string]float64{}
	for _, f := range must.Value(reg.Gather())(t) {
		if f.GetName() != "retwis_redis_errors_total" {
			continue
		}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "kind" {
					out[l.GetValue()] = m.GetCounter().GetValue()
				}
			}
		}
	}
	return out
}

// raw returns a client of the Redis at url, for setting it up.
func raw(t *testing.T, url string) rueidis.Client {
	t.Helper()
	c := must.Value(redisconn.Dial(url))(t)
	t.Cleanup(c.Close)
	return c
}

// configured sets a new server's configuration (name, value pairs).
func configured(config ...string) refusal {
	return func(t *testing.T) (string, func(), command) {
		r := redistest.Start(t)
		redistest.Do(t, raw(t, r.URL), append([]string{"CONFIG", "SET"}, config...)...)
		return r.URL, nil, set
	}
}

// scripted has a new server answer the write, a script, with reply.
func scripted(reply string) refusal {
	return func(t *testing.T) (string, func(), command) {
		return redistest.Start(t).URL, nil, func(b rueidis.Builder) rueidis.Completed {
			return b.Eval().Script("return redis.error_reply('" + reply + "')").Numkeys(1).Key("k").Build()
		}
	}
}

// masterDown returns a replica that serves no stale data and whose
// master goes once the store is connected.
func masterDown(t *testing.T) (string, func(), command) {
	master, replica := redistest.Replicated(t)
	c := raw(t, replica.URL)
	redistest.Do(t, c, "CONFIG", "SET", "replica-serve-stale-data", "no")
	return replica.URL, func() {
		master.Stop(t)
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
			if strings.Contains(redistest.Do(t, c, "INFO", "replication"), "master_link_status:down") {
				return
			}
			if time.Now().After(deadline) {
				t.Fatal("the replica did not see its master go")
			}
		}
	}, get // a write would be refused as READONLY first
}

// get is a read, for a refusal of reads.
func get(b rueidis.Builder) rueidis.Completed { return b.Get().Key("k").Build() }

// busy returns a server that runs a script without end (until the test
// ends) once the store is connected, which it answers BUSY for.
func busy(t *testing.T) (string, func(), command) {
	r := redistest.Start(t)
	looper, killer := raw(t, r.URL), raw(t, r.URL)
	redistest.Do(t, killer, "CONFIG", "SET", "busy-reply-threshold", "1")
	return r.URL, func() {
		looping := make(chan error, 1)
		go func() {
			looping <- looper.Do(context.Background(), looper.B().Eval().Script("while true do end").Numkeys(0).Build()).Error()
		}()
		t.Cleanup(func() {
			killer.Do(context.Background(), killer.B().ScriptKill().Build())
			<-looping
		})
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
			err := killer.Do(t.Context(), killer.B().Ping().Build()).Error()
			if redisconn.Refusal(err) == "busy" {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("the server does not say it is busy: %v", err)
			}
		}
	}, set
}

// clusterFailed returns a cluster node that serves half the slots, the
// one of the write's key among them, and none the other half: the
// cluster is down.
func clusterFailed(t *testing.T) (string, func(), command) {
	dir := t.TempDir()
	for attempt := 0; ; attempt++ {
		l := must.Value(net.Listen("tcp", "127.0.0.1:0"))(t)
		port := l.Addr().(*net.TCPAddr).Port
		l.Close()
		s, err := redisserver.Start(t.Context(), redisserver.Options{Dir: filepath.Join(dir, strconv.Itoa(attempt)), Port: port,
			Args: []string{"--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf"}})
		if err == nil {
			t.Cleanup(func() { s.Stop() })
			must.Value(s.Command(t.Context(), "CLUSTER", "ADDSLOTSRANGE", "0", "8191"))(t) // "k" is in slot 7629
			return "redis://" + s.Addr(), nil, set
		}
		if attempt == 4 { // the cluster bus's port (port+10000) was taken
			t.Fatal(err)
		}
	}
}

// frozen returns a server that freezes (SIGSTOP) once the store is
// connected, until the test ends.
func frozen(t *testing.T) (string, func(), command) {
	r := redistest.Start(t)
	t.Cleanup(func() { r.Resume(t) })
	return r.URL, func() { r.Pause(t) }, set
}

// stopped returns a server that stops once the store is connected.
func stopped(t *testing.T) (string, func(), command) {
	r := redistest.Start(t)
	return r.URL, func() { r.Stop(t) }, set
}
