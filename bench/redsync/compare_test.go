package redsync_test

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-redsync/redsync/v4"
	redsyncredis "github.com/go-redsync/redsync/v4/redis"
	redsyncrueidis "github.com/go-redsync/redsync/v4/redis/rueidis"
	"github.com/redis/rueidis"
	"github.com/redis/rueidis/rueidiscompat"

	"github.com/retwis/retwis/redlock"
)

// BenchmarkCompare runs each library's acquire-and-release on 1 and 5
// instances; redlock with its fencing round and without it.
func BenchmarkCompare(b *testing.B) {
	socks := startServers(b, 5)
	for _, n := range []int{1, 5} {
		urls := make([]string, n)
		pools := make([]redsyncredis.Pool, 0, n)
		for i, s := range socks[:n] {
			urls[i] = "unix://" + s
			pools = append(pools, pool(b, s))
		}
		rs := redsync.New(pools...)
		ops := map[string]func(ctx context.Context, name string) error{
			"redsync": func(ctx context.Context, name string) error {
				m := rs.NewMutex(name, redsync.WithExpiry(10*time.Second))
				if err := m.LockContext(ctx); err != nil {
					return err
				}
				_, err := m.UnlockContext(ctx)
				return err
			},
			"redlock":         redlockOp(b, urls, redlock.Options{}),
			"redlock-nofence": redlockOp(b, urls, redlock.Options{NoFencing: true}),
		}
		for _, name := range []string{"redsync", "redlock", "redlock-nofence"} {
			op := ops[name]
			b.Run(fmt.Sprintf("%s-%d/serial", name, n), func(b *testing.B) { serial(b, op) })
			b.Run(fmt.Sprintf("%s-%d/parallel", name, n), func(b *testing.B) { parallel(b, op) })
		}
	}
}

func redlockOp(b *testing.B, urls []string, opts redlock.Options) func(context.Context, string) error {
	opts.InstanceTimeout = 100 * time.Millisecond
	c, err := redlock.New(urls, opts)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(c.Close)
	return func(ctx context.Context, name string) error {
		l, err := c.Lock(ctx, name, 10*time.Second)
		if err != nil {
			return err
		}
		return l.Unlock(ctx)
	}
}

// pool returns a go-redsync pool on the instance at sock, through rueidis.
func pool(b *testing.B, sock string) redsyncredis.Pool {
	o, err := rueidis.ParseURL("unix://" + sock)
	if err != nil {
		b.Fatal(err)
	}
	o.DisableCache = true
	c, err := rueidis.NewClient(o)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(c.Close)
	return redsyncrueidis.NewPool(rueidiscompat.NewAdapter(c))
}

// serial runs op one at a time and reports its latency percentiles.
func serial(b *testing.B, op func(context.Context, string) error) {
	var lat []time.Duration
	for b.Loop() {
		start := time.Now()
		if err := op(context.Background(), "bench"); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(start))
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
}

// parallel runs op from 8 goroutines per core, each on its own name, and
// reports the throughput.
func parallel(b *testing.B, op func(context.Context, string) error) {
	var next atomic.Int64
	b.SetParallelism(8)
	b.RunParallel(func(pb *testing.PB) {
		name := "bench-" + strconv.FormatInt(next.Add(1), 10)
		for pb.Next() {
			if err := op(context.Background(), name); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "ops/s")
}

// startServers starts n redis-servers on unix sockets, without
// persistence, stopped when the benchmark ends; it returns the sockets.
func startServers(b *testing.B, n int) []string {
	dir, err := os.MkdirTemp("", "rsb")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { os.RemoveAll(dir) })
	var socks []string
	for i := range n {
		sock := filepath.Join(dir, strconv.Itoa(i)+".sock")
		cmd := exec.Command("redis-server", "--port", "0", "--unixsocket", sock, "--save", "", "--appendonly", "no",
			"--dir", dir, "--dbfilename", strconv.Itoa(i)+".rdb")
		if err := cmd.Start(); err != nil {
			b.Skipf("redis-server: %v (on Debian: apt-get install redis-server)", err)
		}
		b.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
		for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
			if c, err := net.Dial("unix", sock); err == nil {
				c.Close()
				break
			}
			if time.Now().After(deadline) {
				b.Fatalf("redis-server on %s did not start", sock)
			}
		}
		socks = append(socks, sock)
	}
	return socks
}
