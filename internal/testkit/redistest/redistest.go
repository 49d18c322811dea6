// Package redistest gives tests a real, empty Redis: a throwaway
// redis-server (or local cluster) started in a temporary directory, or an
// external one named by an environment variable.
package redistest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis/internal/redisserver"
)

// Environment variables that point the tests at external servers instead.
// Their data is flushed before every test: never point them at a database
// you care about. Test packages that share one take turns, and so do the
// tests of a package, parallel or not (see external).
const (
	EnvURL     = "RETWIS_TEST_REDIS"   // a Redis URL, e.g. redis://127.0.0.1:6379/15
	EnvCluster = "RETWIS_TEST_CLUSTER" // a cluster node, e.g. redis://127.0.0.1:7000
)

// Redis is a Redis server for one test.
type Redis struct {
	// URL is the server's address as a redis:// or unix:// URL.
	URL    string
	server *redisserver.Server // nil for an external server
}

// Start returns an empty Redis for t: a new redis-server listening on a
// unix socket in a temporary directory, stopped when t ends, or the
// server named by RETWIS_TEST_REDIS, flushed.
func Start(t testing.TB) *Redis {
	t.Helper()
	if url := os.Getenv(EnvURL); url != "" {
		external.take(t)
		lockExternal(t, url)
		flush(t, url)
		return &Redis{URL: url}
	}
	// A short directory of our own: t.TempDir paths can exceed the
	// ~100-byte limit of a unix socket path.
	dir, err := os.MkdirTemp("", "rtw")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	s, err := redisserver.Start(context.Background(), redisserver.Options{
		Dir: dir, Socket: filepath.Join(dir, "redis.sock"), Persist: true,
	})
	if err != nil {
		t.Fatalf("redistest: cannot start redis-server: %v\n"+
			"The tests need a real redis-server on PATH (make test installs it), "+
			"or %s set to a throwaway server.", err, EnvURL)
	}
	t.Cleanup(func() { s.Stop() })
	return &Redis{URL: s.URL(), server: s}
}

// Stop stops the server, to test what happens when Redis goes away. It
// skips the test when the server is external.
func (r *Redis) Stop(t testing.TB) {
	t.Helper()
	if r.server == nil {
		t.Skip("cannot stop an external Redis")
	}
	r.server.Stop()
}

// Restart starts a stopped server again on the same address.
func (r *Redis) Restart(t testing.TB) {
	t.Helper()
	s, err := redisserver.Start(context.Background(), r.server.Options())
	if err != nil {
		t.Fatalf("redistest: restart: %v", err)
	}
	r.server = s
	t.Cleanup(func() { s.Stop() })
}

// Replicated returns a new master and its replica, both on TCP ports of
// 127.0.0.1, the replica in sync before it returns. It skips the test
// when RETWIS_TEST_REDIS names an external server.
func Replicated(t testing.TB) (master, replica *Redis) {
	t.Helper()
	master, replicas := Replicas(t, 1)
	return master, replicas[0]
}

// Replicas returns a new master and n replicas of it, as Replicated
// does, every replica in sync before it returns.
func Replicas(t testing.TB, n int) (master *Redis, replicas []*Redis) {
	t.Helper()
	if os.Getenv(EnvURL) != "" {
		t.Skip("replication tests start servers of their own")
	}
	dir, err := os.MkdirTemp("", "rtwr")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	start := func(name string, args ...string) *Redis {
		port, err := freePort()
		if err != nil {
			t.Fatal(err)
		}
		s, err := redisserver.Start(context.Background(), redisserver.Options{
			Dir: filepath.Join(dir, name), Port: port, Args: args})
		if err != nil {
			t.Fatalf("redistest: start %s: %v", name, err)
		}
		t.Cleanup(func() { s.Resume(); s.Stop() })
		return &Redis{URL: s.URL(), server: s}
	}
	master = start("master", "--repl-diskless-sync-delay", "0")
	host, port, _ := net.SplitHostPort(master.server.Addr())
	for i := range n {
		replicas = append(replicas, start("replica"+strconv.Itoa(i), "--replicaof", host, port))
	}
	for _, replica := range replicas {
		waitSynced(t, replica)
	}
	waitAcknowledged(t, master, n)
	return master, replicas
}

// waitSynced waits until replica has loaded its master's data.
func waitSynced(t testing.TB, replica *Redis) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		info, err := replica.server.Command(context.Background(), "INFO", "replication")
		if err == nil && strings.Contains(info, "master_link_status:up") {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("redistest: the replica did not sync: %v %s", err, info)
		}
	}
}

// waitAcknowledged waits until n replicas acknowledge a write to master
// (a replica that has just loaded its master's data may take a second
// to), by a write that leaves nothing behind.
func waitAcknowledged(t testing.TB, master *Redis, n int) {
	t.Helper()
	c, err := rueidis.NewClient(rueidis.ClientOption{InitAddress: []string{master.server.Addr()}, DisableCache: true})
	if err != nil {
		t.Fatalf("redistest: connect to the master: %v", err)
	}
	defer c.Close()
	for deadline := time.Now().Add(10 * time.Second); ; {
		res := c.DoMulti(context.Background(), c.B().Set().Key("redistest:acked").Value("1").Build(),
			c.B().Del().Key("redistest:acked").Build(), c.B().Wait().Numreplicas(int64(n)).Timeout(100).Build())
		if acks, err := res[2].AsInt64(); err == nil && acks >= int64(n) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("redistest: the master's %d replicas do not acknowledge its writes", n)
		}
	}
}

// freePort returns a TCP port of 127.0.0.1 that was free a moment ago.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// Pause freezes the server (SIGSTOP) until Resume: it keeps its
// connections and answers nothing, as a stalled machine does.
func (r *Redis) Pause(t testing.TB) {
	t.Helper()
	if err := r.server.Pause(); err != nil {
		t.Fatal(err)
	}
}

// Resume lets a paused server go on.
func (r *Redis) Resume(t testing.TB) {
	t.Helper()
	if err := r.server.Resume(); err != nil {
		t.Fatal(err)
	}
}

// Cluster returns the URL of one node of an empty 3-master Redis Cluster:
// a local one started for t, or the one named by RETWIS_TEST_CLUSTER,
// flushed.
func Cluster(t testing.TB) string {
	t.Helper()
	if url := os.Getenv(EnvCluster); url != "" {
		external.take(t)
		lockExternal(t, url)
		flush(t, url)
		return url
	}
	dir, err := os.MkdirTemp("", "rtwc")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	c, err := redisserver.StartCluster(context.Background(), dir, 3)
	if err != nil {
		t.Fatalf("redistest: cannot start a local Redis Cluster: %v", err)
	}
	t.Cleanup(c.Stop)
	return "redis://" + c.Addrs()[0]
}

// SharedCluster is one 3-master cluster that the tests of a package take
// turns on, started by the first that asks and stopped by Run or Stop (from
// the package's TestMain), so that a package with many cluster tests starts
// one cluster, not one each. A cluster has a single database, so a test
// has the cluster to itself from its call of URL to its end: parallel
// tests wait for their turn.
type SharedCluster struct {
	once    sync.Once
	url     string
	cluster *redisserver.Cluster
	dir     string
	err     error
	turn    turn
}

// URL returns the URL of a node of the shared cluster, flushed, once it
// is t's turn, which lasts until t ends: the cluster named by
// RETWIS_TEST_CLUSTER, or a local one started on first use.
func (s *SharedCluster) URL(t testing.TB) string {
	t.Helper()
	s.turn.take(t)
	if os.Getenv(EnvCluster) != "" {
		return Cluster(t)
	}
	s.once.Do(func() {
		if s.dir, s.err = os.MkdirTemp("", "rtws"); s.err != nil {
			return
		}
		if s.cluster, s.err = redisserver.StartCluster(context.Background(), s.dir, 3); s.err == nil {
			s.url = "redis://" + s.cluster.Addrs()[0]
		}
	})
	if s.err != nil {
		t.Fatalf("redistest: cannot start a local Redis Cluster: %v", s.err)
	}
	flush(t, s.url)
	return s.url
}

// Run runs the tests of m, then stops the shared cluster, and returns
// the exit code for os.Exit: a package's TestMain is
// os.Exit(cluster.Run(m)).
func (s *SharedCluster) Run(m *testing.M) int {
	code := m.Run()
	s.Stop()
	return code
}

// Stop stops the shared cluster, if one was started.
func (s *SharedCluster) Stop() {
	if s.cluster != nil {
		s.cluster.Stop()
	}
	if s.dir != "" {
		os.RemoveAll(s.dir)
	}
}

// ReplicatedCluster starts a local cluster of 3 masters with a replica
// each and a short node timeout (500ms), so that a master's failure is
// noticed and its replica promoted within about a second; the test
// controls the nodes. It skips the test when RETWIS_TEST_CLUSTER names an
// external cluster.
func ReplicatedCluster(t testing.TB) *redisserver.Cluster {
	t.Helper()
	return clusterOf(t, redisserver.ClusterOptions{Masters: 3, Replicas: 1, NodeTimeout: failoverNodeTimeout})
}

// RecommendedCluster starts a local cluster of the topology the docs
// recommend (redisserver.Recommended: 3 masters with two replicas each,
// min-replicas-to-write 1), with ReplicatedCluster's short node timeout.
func RecommendedCluster(t testing.TB) *redisserver.Cluster {
	t.Helper()
	return clusterOf(t, redisserver.Recommended("", failoverNodeTimeout))
}

// failoverNodeTimeout is the node timeout of the clusters failover
// tests start: a failed master's replica takes over within about a
// second.
const failoverNodeTimeout = 500 * time.Millisecond

// clusterOf starts the local cluster o describes in a directory of its
// own, and stops it when the test ends (resuming any node the test
// paused). It skips the test when RETWIS_TEST_CLUSTER names an external
// cluster.
func clusterOf(t testing.TB, o redisserver.ClusterOptions) *redisserver.Cluster {
	t.Helper()
	if os.Getenv(EnvCluster) != "" {
		t.Skip("failover tests start clusters of their own")
	}
	dir, err := os.MkdirTemp("", "rtwf")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	o.Dir = dir
	c, err := redisserver.StartClusterWith(context.Background(), o)
	if err != nil {
		t.Fatalf("redistest: cannot start a replicated cluster: %v", err)
	}
	t.Cleanup(func() {
		for _, n := range c.Nodes {
			n.Resume()
		}
		c.Stop()
	})
	return c
}

// external is the turn of this process's tests on the external servers:
// each test flushes them, so one test at a time uses them, from its first
// Start or Cluster to its end.
var external turn

// turn lets one test at a time hold something (a database it flushes)
// until the test ends.
type turn struct {
	lock   sync.Mutex // held by the test whose turn it is
	mu     sync.Mutex // guards holder
	holder testing.TB
}

// take waits for t's turn, which lasts until t ends. A test that holds
// the turn already, or whose parent test does, has it at once.
func (tn *turn) take(t testing.TB) {
	tn.mu.Lock()
	h := tn.holder
	tn.mu.Unlock()
	if h != nil && (h == t || strings.HasPrefix(t.Name(), h.Name()+"/")) {
		return
	}
	tn.lock.Lock()
	tn.mu.Lock()
	tn.holder = t
	tn.mu.Unlock()
	t.Cleanup(func() {
		tn.mu.Lock()
		tn.holder = nil
		tn.mu.Unlock()
		tn.lock.Unlock()
	})
}

// externalLocks holds, per external URL, a lock file taken by the first
// test of this process to use it and kept until the process exits: go
// test runs packages in parallel, and tests of two packages flushing the
// same server would wipe each other's data.
var externalLocks sync.Map

func lockExternal(t testing.TB, url string) {
	t.Helper()
	if _, held := externalLocks.Load(url); held {
		return
	}
	sum := sha256.Sum256([]byte(url))
	path := filepath.Join(os.TempDir(), "retwis-test-"+hex.EncodeToString(sum[:8])+".lock")
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		t.Fatalf("redistest: lock %s: %v", url, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatalf("redistest: lock %s: %v", url, err)
	}
	externalLocks.Store(url, f) // never closed: the lock lasts as long as the process
}

// flush empties every master behind url.
func flush(t testing.TB, url string) {
	t.Helper()
	opt, err := rueidis.ParseURL(url)
	if err != nil {
		t.Fatalf("redistest: %v", err)
	}
	opt.DisableCache = true
	c, err := rueidis.NewClient(opt)
	if err != nil {
		t.Fatalf("redistest: connect to %s: %v", url, err)
	}
	defer c.Close()
	for addr, node := range c.Nodes() {
		err := node.Do(context.Background(), node.B().Flushall().Build()).Error()
		if err != nil && !strings.Contains(err.Error(), "READONLY") {
			t.Fatalf("redistest: flush %s: %v", addr, err)
		}
	}
}

// Snapshot returns every key of the database behind c (every master of
// a cluster) with a form of its value that changes only when the value
// does: DUMP, but for hashes and sets, whose DUMP follows the order of
// Redis's dictionary, which an incremental rehash changes on reads, the
// sorted fields and values or members. It proves that an operation
// wrote nothing.
func Snapshot(t testing.TB, c rueidis.Client) map[string]string {
	t.Helper()
	ctx := context.Background()
	snap := map[string]string{}
	for _, node := range c.Nodes() {
		keys, err := node.Do(ctx, node.B().Keys().Pattern("*").Build()).AsStrSlice()
		if err != nil {
			continue // a replica, or a node that is down
		}
		for _, k := range keys {
			snap[k] = canonical(t, node, k)
		}
	}
	return snap
}

// canonical returns key's value on node in the form of Snapshot.
func canonical(t testing.TB, node rueidis.Client, key string) string {
	ctx := context.Background()
	kind, err := node.Do(ctx, node.B().Type().Key(key).Build()).ToString()
	if err != nil {
		t.Fatalf("TYPE %s: %v", key, err)
	}
	var parts []string
	switch kind {
	case "hash":
		m, err := node.Do(ctx, node.B().Hgetall().Key(key).Build()).AsStrMap()
		if err != nil {
			t.Fatalf("HGETALL %s: %v", key, err)
		}
		for f, v := range m {
			parts = append(parts, f+"\x00"+v)
		}
	case "set":
		if parts, err = node.Do(ctx, node.B().Smembers().Key(key).Build()).AsStrSlice(); err != nil {
			t.Fatalf("SMEMBERS %s: %v", key, err)
		}
	default:
		v, err := node.Do(ctx, node.B().Dump().Key(key).Build()).ToString()
		if err != nil && !rueidis.IsRedisNil(err) {
			t.Fatalf("DUMP %s: %v", key, err)
		}
		return kind + ":" + v
	}
	slices.Sort(parts)
	return kind + ":" + strings.Join(parts, "\x01")
}
