package jobqueue_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis/internal/jobqueue"
	"github.com/retwis/retwis/internal/redisconn"
	"github.com/retwis/retwis/internal/testkit/must"
	"github.com/retwis/retwis/internal/testkit/redistest"
)

var streams = []string{"jobs:{a}", "jobs:{b}"}

func dial(t *testing.T) rueidis.Client {
	t.Helper()
	c, err := redisconn.Dial(redistest.Start(t).URL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

func add(t *testing.T, c rueidis.Client, stream, name string) {
	t.Helper()
	if err := c.Do(t.Context(), c.B().Xadd().Key(stream).Id("*").FieldValue().FieldValue("name", name).Build()).Error(); err != nil {
		t.Fatal(err)
	}
}

// log records what handlers did, safely from many goroutines.
type log struct {
	mu   sync.Mutex
	runs map[string][]bool // job name → Resumed at each run
}

func (l *log) record(j jobqueue.Job) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.runs[j.Fields["name"]] = append(l.runs[j.Fields["name"]], j.Resumed)
	return len(l.runs[j.Fields["name"]])
}

func (l *log) get(name string) []bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]bool(nil), l.runs[name]...)
}

// runUntil runs q until done reports true (or 10 s have passed), then
// stops it and waits for it to return.
func runUntil(t *testing.T, q *jobqueue.Queue, done func() bool) {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	stopped := make(chan struct{})
	go func() { q.Run(ctx); close(stopped) }()
	for deadline := time.Now().Add(10 * time.Second); !done() && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	<-stopped
}

// TestRunRetriesAndTidies runs jobs on two streams: each succeeds once
// and is gone from its stream, with the commands of Tidy sent; a job that
// fails is tried again, marked Resumed, until it succeeds; a job handed
// over with it that succeeded is not.
func TestRunRetriesAndTidies(t *testing.T) {
	t.Parallel()
	c := dial(t)
	l := &log{runs: map[string][]bool{}}
	q := jobqueue.New(c, jobqueue.Options{
		Streams: streams, Group: "g", Consumer: "w1", Block: 20 * time.Millisecond, Parallel: 2,
		Handle: func(ctx context.Context, jobs []jobqueue.Job) error {
			failed := jobqueue.JobErrors{}
			for _, j := range jobs { // one of each stream at most (Batch 1)
				if n := l.record(j); j.Fields["name"] == "flaky" && n < 3 {
					failed[j.Ref()] = errors.New("not yet")
				}
			}
			if len(failed) > 0 {
				return failed
			}
			return nil
		},
		Tidy: func(jobs []jobqueue.Job) rueidis.Commands {
			return rueidis.Commands{c.B().Sadd().Key("tidied:{" + jobs[0].Stream + "}").Member(jobs[0].Fields["name"]).Build()}
		},
	})
	for _, s := range streams {
		if err := q.EnsureGroup(t.Context(), s); err != nil {
			t.Fatal(err)
		}
	}
	add(t, c, streams[0], "one")
	add(t, c, streams[1], "flaky") // handed over with one, at the start
	add(t, c, streams[1], "two")
	empty := func() bool {
		for _, s := range streams {
			if n := must.Value(c.Do(t.Context(), c.B().Xlen().Key(s).Build()).AsInt64())(t); n != 0 {
				return false
			}
		}
		return true
	}
	runUntil(t, q, func() bool { return len(l.get("flaky")) >= 3 && empty() })
	if got := l.get("flaky"); fmt.Sprint(got) != "[false true true]" {
		t.Errorf("the failing job ran %v (Resumed at each run); want [false true true]", got)
	}
	for _, name := range []string{"one", "two"} {
		if got := l.get(name); fmt.Sprint(got) != "[false]" {
			t.Errorf("job %s ran %v; want once, fresh", name, got)
		}
	}
	for _, s := range streams {
		if n := must.Value(c.Do(t.Context(), c.B().Xlen().Key(s).Build()).AsInt64())(t); n != 0 {
			t.Errorf("%s still holds %d jobs", s, n)
		}
	}
	if got := must.Value(c.Do(t.Context(), c.B().Smembers().Key("tidied:{"+streams[1]+"}").Build()).AsStrSlice())(t); len(got) != 2 {
		t.Errorf("tidied on %s: %v; want two and flaky", streams[1], got)
	}
}

// TestReclaimAndRemoveGone leaves a job pending with a worker that died:
// Reclaim carries it out (Resumed); RemoveGone then removes the dead
// worker, never the live one.
func TestReclaimAndRemoveGone(t *testing.T) {
	t.Parallel()
	c := dial(t)
	opts := jobqueue.Options{Streams: streams[:1], Group: "g", Block: 10 * time.Millisecond,
		Handle: func(context.Context, []jobqueue.Job) error { return nil }}
	dead := opts
	dead.Consumer = "dead"
	holding := make(chan struct{})
	hold := sync.OnceFunc(func() { close(holding) })
	dead.Handle = func(ctx context.Context, _ []jobqueue.Job) error { hold(); <-ctx.Done(); return ctx.Err() }
	dq := jobqueue.New(c, dead)
	if err := dq.EnsureGroup(t.Context(), streams[0]); err != nil {
		t.Fatal(err)
	}
	add(t, c, streams[0], "stuck")
	ctx, cancel := context.WithCancel(t.Context())
	died := make(chan struct{})
	go func() { dq.Run(ctx); close(died) }()
	select { // the worker reads the job, then dies with it (Drain 0)
	case <-holding:
	case <-time.After(10 * time.Second):
		t.Fatal("the worker did not read the job")
	}
	cancel()
	<-died

	var got []jobqueue.Job
	live := opts
	live.Consumer = "live"
	live.Handle = func(_ context.Context, jobs []jobqueue.Job) error { got = append(got, jobs...); return nil }
	q := jobqueue.New(c, live)
	n, err := q.Reclaim(t.Context(), time.Hour)
	if err != nil || n != 0 {
		t.Fatalf("Reclaim of jobs idle an hour = %d, %v; want none", n, err)
	}
	time.Sleep(20 * time.Millisecond)
	if n, err := q.Reclaim(t.Context(), 10*time.Millisecond); err != nil || n != 1 || len(got) != 1 || !got[0].Resumed {
		t.Fatalf("Reclaim = %d, %v, ran %+v; want the stuck job, resumed", n, err, got)
	}
	if err := q.EnsureGroup(t.Context(), streams[0]); err != nil { // idempotent
		t.Fatal(err)
	}
	time.Sleep(20 * time.Millisecond)
	if n, err := q.RemoveGone(t.Context(), 10*time.Millisecond); err != nil || n != 1 {
		t.Fatalf("RemoveGone = %d, %v; want the dead worker", n, err)
	}
	infos, err := c.Do(t.Context(), c.B().XinfoConsumers().Key(streams[0]).Group("g").Build()).ToArray()
	if err != nil || len(infos) != 1 {
		t.Fatalf("consumers left: %d, %v; want the live one", len(infos), err)
	}
}

// TestBatch records jobs before a worker runs: with Batch 8, a read
// hands them to one call of Handle together (up to 8), and a batch that
// fails is handed over again whole, marked Resumed, until it succeeds;
// then every job is gone.
func TestBatch(t *testing.T) {
	t.Parallel()
	c := dial(t)
	var mu sync.Mutex
	var calls [][]string
	fail := true
	q := jobqueue.New(c, jobqueue.Options{
		Streams: streams[:1], Group: "g", Consumer: "w", Block: 20 * time.Millisecond, Batch: 8,
		Handle: func(ctx context.Context, jobs []jobqueue.Job) error {
			mu.Lock()
			defer mu.Unlock()
			var names []string
			for _, j := range jobs {
				names = append(names, fmt.Sprint(j.Fields["name"], "/", j.Resumed))
			}
			calls = append(calls, names)
			if fail {
				fail = false
				return errors.New("once")
			}
			return nil
		},
	})
	if err := q.EnsureGroup(t.Context(), streams[0]); err != nil {
		t.Fatal(err)
	}
	for i := range 10 {
		add(t, c, streams[0], fmt.Sprint(i))
	}
	runUntil(t, q, func() bool {
		return must.Value(c.Do(t.Context(), c.B().Xlen().Key(streams[0]).Build()).AsInt64())(t) == 0
	})
	mu.Lock()
	defer mu.Unlock()
	want := "[[0/false 1/false 2/false 3/false 4/false 5/false 6/false 7/false] " +
		"[0/true 1/true 2/true 3/true 4/true 5/true 6/true 7/true] [8/false 9/false]]"
	if fmt.Sprint(calls) != want {
		t.Errorf("Handle got %v; want %v", calls, want)
	}
}

// TestGroupsInQueueOrder queues jobs on three streams, interleaved,
// before a worker runs: with one Handle at a time and reads of 4, every
// call holds the oldest jobs of several streams, and the calls, one
// after the other, take the jobs in the order they were queued across
// the streams, each once (within a call, the jobs are done together).
func TestGroupsInQueueOrder(t *testing.T) {
	t.Parallel()
	c := dial(t)
	three := []string{"jobs:{a}", "jobs:{b}", "jobs:{c}"}
	var mu sync.Mutex
	var order []string // job names, in the order Handle got them
	mixed := 0         // calls with jobs of more than one stream
	q := jobqueue.New(c, jobqueue.Options{
		Streams: three, Group: "g", Consumer: "w", Block: 20 * time.Millisecond, Batch: 4, Parallel: 1,
		Handle: func(ctx context.Context, jobs []jobqueue.Job) error {
			mu.Lock()
			defer mu.Unlock()
			seen := map[string]bool{}
			var call []string
			for _, j := range jobs {
				call = append(call, j.Fields["name"])
				seen[j.Stream] = true
			}
			slices.Sort(call) // a call's jobs are done together
			order = append(order, call...)
			if len(seen) > 1 {
				mixed++
			}
			return nil
		},
	})
	var want []string
	for _, s := range three {
		if err := q.EnsureGroup(t.Context(), s); err != nil {
			t.Fatal(err)
		}
	}
	base := time.Now().UnixMilli()
	for i := range 45 { // a millisecond apart: ids of different streams compare by their time only
		name := fmt.Sprintf("%02d", i)
		xadd := c.B().Xadd().Key(three[(i*i+i/3)%3]).Id(fmt.Sprint(base+int64(i), "-1")) // uneven runs on each stream
		if err := c.Do(t.Context(), xadd.FieldValue().FieldValue("name", name).Build()).Error(); err != nil {
			t.Fatal(err)
		}
		want = append(want, name)
	}
	runUntil(t, q, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(order) >= len(want)
	})
	mu.Lock()
	defer mu.Unlock()
	if fmt.Sprint(order) != fmt.Sprint(want) || mixed == 0 {
		t.Errorf("Handle got the jobs in the order %v (%d calls of several streams); want %v, some calls of several streams",
			order, mixed, want)
	}
}
