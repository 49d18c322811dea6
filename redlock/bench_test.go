package redlock_test

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis/redlock"
)

// BenchmarkLock measures an acquire and a release, one after the other
// (latency, with p50 and p99 reported) and from many goroutines on
// distinct names (throughput), on 1 and on 5 local instances, next to a
// plain SET NX PX + DEL on one instance as the baseline of the same run.
//
//	go test ./redlock -run '^$' -bench Lock -benchtime 3s
func BenchmarkLock(b *testing.B) {
	servers := startServers(b, 5, false)
	for _, n := range []int{1, 5} {
		c := newClient(b, servers[:n], redlock.Options{InstanceTimeout: 100 * time.Millisecond})
		op := func(ctx context.Context, name string) error {
			l, err := c.Lock(ctx, name, 10*time.Second)
			if err != nil {
				return err
			}
			return l.Unlock(ctx)
		}
		b.Run(fmt.Sprintf("redlock-%d/serial", n), func(b *testing.B) { serial(b, op) })
		b.Run(fmt.Sprintf("redlock-%d/parallel", n), func(b *testing.B) { parallel(b, op) })
	}
	o, err := rueidis.ParseURL(servers[0].url())
	if err != nil {
		b.Fatal(err)
	}
	o.DisableCache = true
	raw, err := rueidis.NewClient(o)
	if err != nil {
		b.Fatal(err)
	}
	defer raw.Close()
	baseline := func(ctx context.Context, name string) error {
		if err := raw.Do(ctx, raw.B().Set().Key(name).Value("v").Nx().Px(10*time.Second).Build()).Error(); err != nil {
			return err
		}
		return raw.Do(ctx, raw.B().Del().Key(name).Build()).Error()
	}
	b.Run("setnx-del-1/serial", func(b *testing.B) { serial(b, baseline) })
	b.Run("setnx-del-1/parallel", func(b *testing.B) { parallel(b, baseline) })
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

// parallel runs op from many goroutines, each on its own name, and
// reports the throughput.
func parallel(b *testing.B, op func(context.Context, string) error) {
	var next atomic.Int64
	b.SetParallelism(8) // 8 goroutines per core: clients that overlap, as in a fleet
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
