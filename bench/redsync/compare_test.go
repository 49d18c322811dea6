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
	"strings"
	"sync/atomic"
	"syscall"
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
// instances; redlock with its fencing round and without it. Besides the
// latency and the throughput, each sub-benchmark reports what an
// operation costs: CPU of this process (go-cpu-µs/op), CPU of the
// redis-servers (redis-cpu-µs/op) and the reads the servers made from
// their sockets (redis-reads/op: fewer reads for the same commands means
// the client pipelines more of them into one write).
func BenchmarkCompare(b *testing.B) {
	socks := startServers(b, 5)
	for _, n := range []int{1, 5} {
		m := newMeter(b, socks[:n])
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
			b.Run(fmt.Sprintf("%s-%d/serial", name, n), func(b *testing.B) { m.measure(b, func() { serial(b, op) }) })
			b.Run(fmt.Sprintf("%s-%d/parallel", name, n), func(b *testing.B) { m.measure(b, func() { parallel(b, op) }) })
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
	return redsyncrueidis.NewPool(rueidiscompat.NewAdapter(client(b, sock)))
}

// client returns a rueidis client of the instance at sock, with the
// options go-redsync's users would give it (no client-side cache).
func client(b *testing.B, sock string) rueidis.Client {
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
	return c
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

// meter reads the CPU time of this process and of the redis-servers, and
// the servers' socket reads, around a sub-benchmark.
type meter struct {
	b       *testing.B
	servers []rueidis.Client
}

func newMeter(b *testing.B, socks []string) *meter {
	m := &meter{b: b}
	for _, s := range socks {
		m.servers = append(m.servers, client(b, s))
	}
	return m
}

// usage is a reading: CPU seconds of this process and of the servers,
// and the servers' reads.
type usage struct{ goCPU, redisCPU, reads float64 }

// measure runs bench (which runs b's loop) and reports its costs per
// operation.
func (m *meter) measure(b *testing.B, bench func()) {
	before := m.read()
	bench()
	after := m.read()
	n := float64(b.N)
	b.ReportMetric((after.goCPU-before.goCPU)*1e6/n, "go-cpu-µs/op")
	b.ReportMetric((after.redisCPU-before.redisCPU)*1e6/n, "redis-cpu-µs/op")
	b.ReportMetric((after.reads-before.reads)/n, "redis-reads/op")
}

func (m *meter) read() usage {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		m.b.Fatal(err)
	}
	u := usage{goCPU: seconds(ru.Utime) + seconds(ru.Stime)}
	for _, c := range m.servers {
		info, err := c.Do(context.Background(), c.B().Info().Section("cpu").Section("stats").Build()).ToString()
		if err != nil {
			m.b.Fatal(err)
		}
		u.redisCPU += infoField(info, "used_cpu_user") + infoField(info, "used_cpu_sys")
		u.reads += infoField(info, "total_reads_processed")
	}
	return u
}

func seconds(t syscall.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)/1e6 }

// infoField returns the number named field in an INFO reply, 0 if absent.
func infoField(info, field string) float64 {
	for line := range strings.Lines(info) {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), field+":"); ok {
			f, _ := strconv.ParseFloat(v, 64)
			return f
		}
	}
	return 0
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
