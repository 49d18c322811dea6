package load

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis/internal/resp"
	"github.com/retwis/retwis/internal/testkit/redistest"
)

// loadInput loads input into the Redis of opts (within a minute unless
// opts say otherwise) and returns the report, the error replies written
// and the error.
func loadInput(t testing.TB, input []byte, opts Options) (Report, string, error) {
	t.Helper()
	var out bytes.Buffer
	opts.Errors = &out
	if opts.Timeout == 0 {
		opts.Timeout = time.Minute
	}
	rep, err := Run(context.Background(), opts, bytes.NewReader(input))
	return rep, out.String(), err
}

// newTestClient connects a rueidis client, of a cluster when url is a
// cluster node, to check what a load did.
func newTestClient(t testing.TB, url string) rueidis.Client {
	t.Helper()
	opt, err := rueidis.ParseURL(url)
	if err != nil {
		t.Fatal(err)
	}
	opt.DisableCache = true
	c, err := rueidis.NewClient(opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// get returns the value of key, and false when it does not exist.
func get(t testing.TB, c rueidis.Client, key string) (string, bool) {
	t.Helper()
	v, err := c.Do(context.Background(), c.B().Get().Key(key).Build()).ToString()
	if rueidis.IsRedisNil(err) {
		return "", false
	}
	if err != nil {
		t.Fatalf("GET %q: %v", key, err)
	}
	return v, true
}

// FuzzRoundTrip loads SET commands with arbitrary values and keys into a
// real Redis and reads them back: the load must be binary safe.
func FuzzRoundTrip(f *testing.F) {
	redis := redistest.Start(f)
	c := newTestClient(f, redis.URL)
	big := make([]byte, 1<<20)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range big {
		big[i] = byte(rng.Uint32())
	}
	for _, seed := range [][]byte{
		{}, []byte("\r\n"), []byte("\r"), []byte("\n"), {0}, []byte("a\x00b\r\nc"),
		[]byte("\xff\xfe\xc3\x28"), []byte("*1\r\n$4\r\nPING\r\n"), []byte("$-1\r\n"), []byte("-ERR fake\r\n"), big,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, value []byte) {
		// The value is also a key, so that binary keys are routed and kept too.
		input := resp.Commands([]string{"SET", "k", string(value)}, []string{"SET", "key:" + string(value), "v"})
		rep, errs, err := loadInput(t, input, Options{URL: redis.URL})
		if err != nil || rep.Replies != 2 || rep.Errors != 0 {
			t.Fatalf("load: %v, %+v\n%s", err, rep, errs)
		}
		if got, _ := get(t, c, "k"); got != string(value) {
			t.Fatalf("GET k = %d bytes; want %d: not the bytes loaded", len(got), len(value))
		}
		if got, ok := get(t, c, "key:"+string(value)); !ok || got != "v" {
			t.Fatalf("GET of the binary key = %q, %v", got, ok)
		}
	})
}

func TestLoadErrorsAttributed(t *testing.T) {
	t.Parallel()
	redis := redistest.Start(t)
	manyErrors := [][]string{{"SET", "s", "v"}}
	for range 250 {
		manyErrors = append(manyErrors, []string{"LPUSH", "s", "x"})
	}
	for _, tc := range []struct {
		name    string
		cmds    [][]string
		want    []string // lines of the error replies
		replies int64
		wantErr string
	}{
		{"commands 3 and 7", [][]string{
			{"SET", "s", "v"}, {"SET", "t", "v"}, {"LPUSH", "s", "x"}, {"INCR", "n"}, {"INCR", "n"},
			{"INCR", "n"}, {"LPUSH", "t", "x"}, {"SET", "a", "b"}, {"GET", "a"}, {"PING"},
		}, []string{
			"command 3: WRONGTYPE Operation against a key holding the wrong kind of value",
			"command 7: WRONGTYPE Operation against a key holding the wrong kind of value",
		}, 10, "2 of 10 commands failed"},
		{"only the first 100 shown", manyErrors, nil, 251, "250 of 251 commands failed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep, errs, err := loadInput(t, resp.Commands(tc.cmds...), Options{URL: redis.URL})
			if err == nil || err.Error() != tc.wantErr || rep.Replies != tc.replies {
				t.Fatalf("%v, %+v; want %q and %d replies", err, rep, tc.wantErr, tc.replies)
			}
			lines := strings.Split(strings.TrimSuffix(errs, "\n"), "\n")
			if tc.want != nil && !slices.Equal(lines, tc.want) {
				t.Fatalf("error replies:\n%s\nwant:\n%s", errs, strings.Join(tc.want, "\n"))
			}
			if tc.want == nil && (len(lines) != 101 || lines[0] != "command 2: WRONGTYPE Operation against a key holding the wrong kind of value" ||
				!strings.HasPrefix(lines[99], "command 101: ") || lines[100] != "… and 150 more errors, not shown") {
				t.Fatalf("error replies:\n%s", errs)
			}
		})
	}
	if n, _ := get(t, newTestClient(t, redis.URL), "n"); n != "3" {
		t.Fatalf("n = %q: the commands between the errors did not all run", n)
	}
}

// TestLoadOutOfStep loads a command that gets two replies (SUBSCRIBE to
// two channels) after some that get simple ones: the load must see that
// the second reply answers no command, or that the reply to its final
// ECHO is not the one it sent (whichever the second reply comes before),
// and break off.
func TestLoadOutOfStep(t *testing.T) {
	t.Parallel()
	redis := redistest.Start(t)
	cmds := [][]string{{"SET", "a", "1"}, {"INCR", "n"}, {"SUBSCRIBE", "c1", "c2"}}
	for range 20 {
		rep, _, err := loadInput(t, resp.Commands(cmds...), Options{URL: redis.URL})
		if !errors.Is(err, ErrBrokeOff) || rep.Replies != 3 ||
			!strings.Contains(err.Error(), "the reply to the final ECHO did not match") && !strings.Contains(err.Error(), "a reply to no command") {
			t.Fatalf("%v, %+v; want the load broken off on the fourth reply, after 3", err, rep)
		}
	}
}

// TestLoadBadInput loads inputs that go bad after five good commands: the
// five are applied, nothing after the bad bytes is, and the message gives
// the offset of the bad byte.
func TestLoadBadInput(t *testing.T) {
	t.Parallel()
	var good [][]string
	for i := range 5 {
		good = append(good, []string{"SET", "before:" + strconv.Itoa(i), "v"})
	}
	prefix := resp.Commands(good...)
	after := resp.Commands([]string{"SET", "after", "v"})
	for _, tc := range []struct {
		name  string
		input []byte
		want  string
	}{
		{"garbage between commands", concat(prefix, []byte("x"), after),
			fmt.Sprintf("input: byte %d: expected '*', got 'x' (command 6: it and all after it were not sent)", len(prefix))},
		{"bad argument header", concat(prefix, []byte("*3\r\n$3\r\nSET\r\nx5\r\nafter\r\n$1\r\nv\r\n"), after),
			fmt.Sprintf("input: byte %d: expected '$', got 'x'", len(prefix)+13)},
		{"argument longer than its length", concat(prefix, []byte("*3\r\n$3\r\nSET\r\n$2\r\nafter\r\n$1\r\nv\r\n"), after),
			fmt.Sprintf("input: byte %d: expected CRLF after the 2 bytes of argument 2, got 't'", len(prefix)+19)},
		{"truncated", concat(prefix, after[:len(after)-3]),
			fmt.Sprintf("input: truncated command at byte %d (the input ends at byte %d)", len(prefix), len(prefix)+len(after)-3)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			redis := redistest.Start(t)
			rep, _, err := loadInput(t, tc.input, Options{URL: redis.URL})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v; want %q", err, tc.want)
			}
			if rep.Replies != 5 || rep.Errors != 0 {
				t.Fatalf("%+v; want the replies of the five good commands", rep)
			}
			c := newTestClient(t, redis.URL)
			for i := range 5 {
				if _, ok := get(t, c, "before:"+strconv.Itoa(i)); !ok {
					t.Fatalf("before:%d is missing", i)
				}
			}
			if _, ok := get(t, c, "after"); ok {
				t.Fatal("a command after the bad bytes was applied")
			}
		})
	}
}

func concat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

// TestLoadSlowReplies puts commands that reply late (a blocking pop that
// times out, a slow script) among many quick ones: every reply must be
// waited for and counted, the sentinel's included in none.
func TestLoadSlowReplies(t *testing.T) {
	t.Parallel()
	redis := redistest.Start(t)
	var cmds [][]string
	for i := range 1000 {
		cmds = append(cmds, []string{"SET", "early:" + strconv.Itoa(i), "v"})
	}
	cmds = append(cmds, []string{"BLPOP", "nothing", "0.2"},
		[]string{"EVAL", "local i = 0 while i < 3000000 do i = i + 1 end return i", "0"})
	for i := range 20_000 {
		cmds = append(cmds, []string{"SET", "late:" + strconv.Itoa(i), "v"})
	}
	start := time.Now()
	rep, _, err := loadInput(t, resp.Commands(cmds...), Options{URL: redis.URL})
	if err != nil || rep.Replies != 21002 || rep.Errors != 0 || rep.Sent != 21002 {
		t.Fatalf("%v, %+v", err, rep)
	}
	if time.Since(start) < 200*time.Millisecond || rep.Duration < 200*time.Millisecond {
		t.Fatal("the load did not wait for the blocking pop")
	}
	if !strings.HasPrefix(rep.String(), "sent 21002 commands (") {
		t.Fatalf("summary %q", rep.String())
	}
	c := newTestClient(t, redis.URL)
	if n, err := c.Do(context.Background(), c.B().Dbsize().Build()).AsInt64(); err != nil || n != 21_000 {
		t.Fatalf("DBSIZE = %d, %v; want 21000", n, err)
	}
}

// TestLoadSkip resumes a load of counter increments: the skipped commands
// must not run, the others exactly once.
func TestLoadSkip(t *testing.T) {
	t.Parallel()
	var cmds [][]string
	for i := 1; i <= 10; i++ {
		cmds = append(cmds, []string{"INCR", "c" + strconv.Itoa(i)})
	}
	for _, tc := range []struct {
		skip    int64
		replies int64
		applied int // commands from this number on ran
	}{
		{0, 10, 1},
		{5, 5, 6},
		{10, 0, 11},
		{12, 0, 11},
	} {
		t.Run(strconv.FormatInt(tc.skip, 10), func(t *testing.T) {
			redis := redistest.Start(t)
			rep, _, err := loadInput(t, resp.Commands(cmds...), Options{URL: redis.URL, Skip: tc.skip})
			if err != nil || rep.Replies != tc.replies || rep.Skipped != min(tc.skip, 10) || rep.Acknowledged != 10 {
				t.Fatalf("%v, %+v", err, rep)
			}
			c := newTestClient(t, redis.URL)
			for i := 1; i <= 10; i++ {
				v, _ := get(t, c, "c"+strconv.Itoa(i))
				if want := map[bool]string{true: "1", false: ""}[i >= tc.applied]; v != want {
					t.Fatalf("c%d = %q; want %q", i, v, want)
				}
			}
		})
	}
}

// TestLoadConnectionDrop stops the server in the middle of a load: the
// load must fail and say how many commands were acknowledged, and every
// one of those must be in the server once it is back.
func TestLoadConnectionDrop(t *testing.T) {
	t.Parallel()
	redis := redistest.Start(t)
	rep := loadUntilStopped(t, redis.URL, func() { redis.Stop(t) })
	if rep.Errors != 0 || rep.Replies != rep.Acknowledged {
		t.Fatalf("%+v; want every acknowledged command, and only those, to have replied", rep)
	}
	acked := int(rep.Acknowledged)
	redis.Restart(t)
	c := newTestClient(t, redis.URL)
	n, err := c.Do(context.Background(), c.B().Dbsize().Build()).AsInt64()
	if err != nil || n < int64(acked) {
		t.Fatalf("DBSIZE = %d, %v after a restart; want at least the %d acknowledged", n, err, acked)
	}
	for i := 1; i <= acked; i += max(1, acked/100) {
		if _, ok := get(t, c, "drop:"+strconv.Itoa(i)); !ok {
			t.Fatalf("drop:%d was acknowledged but is not in Redis", i)
		}
	}
	if _, ok := get(t, c, "drop:"+strconv.Itoa(acked)); !ok {
		t.Fatalf("drop:%d was acknowledged but is not in Redis", acked)
	}
}

// loadUntilStopped loads an endless stream of "SET drop:N v" into url,
// calls stop once the load is well under way, and returns the report of
// the load, which must have broken off.
func loadUntilStopped(t *testing.T, url string, stop func()) Report {
	t.Helper()
	in, feed := io.Pipe()
	defer in.Close() // ends the feeder
	var count atomic.Int64
	go func() {
		var buf []byte
		for i := 1; ; i += 1000 {
			buf = buf[:0]
			for j := i; j < i+1000; j++ {
				buf = resp.AppendCommand(buf, "SET", "drop:"+strconv.Itoa(j), "v")
			}
			if _, err := feed.Write(buf); err != nil {
				return // the load is over
			}
			count.Store(int64(i + 999))
		}
	}()
	type result struct {
		rep Report
		err error
	}
	done := make(chan result, 1)
	go func() {
		rep, err := Run(context.Background(), Options{URL: url, Timeout: 10 * time.Second}, in)
		done <- result{rep, err}
	}()
	for count.Load() < 300_000 { // megabytes in: well under way
		time.Sleep(time.Millisecond)
	}
	stop()
	var r result
	select {
	case r = <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("the load did not notice that the server went away")
	}
	if !errors.Is(r.err, ErrBrokeOff) {
		t.Fatalf("load error: %v; want ErrBrokeOff", r.err)
	}
	if r.rep.Acknowledged < 1 || r.rep.Acknowledged > count.Load() {
		t.Fatalf("%d commands acknowledged, of %d fed", r.rep.Acknowledged, count.Load())
	}
	t.Logf("%v: %d acknowledged", r.err, r.rep.Acknowledged)
	return r.rep
}

// BenchmarkLoad loads 200,000 SET commands into a real server per
// iteration.
func BenchmarkLoad(b *testing.B) {
	benchmarkLoad(b, redistest.Start(b).URL, 200_000)
}

// BenchmarkLoadCluster loads 1,000,000 SET commands into a local 3-master
// cluster per iteration: with -cpuprofile, the loader's CPU per command.
func BenchmarkLoadCluster(b *testing.B) {
	benchmarkLoad(b, redistest.Cluster(b), 1_000_000)
}

// benchmarkLoad loads n SET commands into the Redis at url per iteration.
func benchmarkLoad(b *testing.B, url string, n int) {
	var input []byte
	for i := range n {
		input = resp.AppendCommand(input, "SET", "key:"+strconv.Itoa(i), "value:"+strconv.Itoa(i))
	}
	b.SetBytes(int64(len(input)))
	for b.Loop() {
		if _, errs, err := loadInput(b, input, Options{URL: url}); err != nil {
			b.Fatalf("%v: %s", err, errs)
		}
	}
	b.ReportMetric(float64(b.N*n)/b.Elapsed().Seconds(), "commands/s")
}
