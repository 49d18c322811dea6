package kernel

import (
	"strconv"
	"strings"
	"testing"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis/internal/redisconn"
	"github.com/retwis/retwis/internal/testkit/must"
	"github.com/retwis/retwis/internal/testkit/redistest"
)

// BenchmarkPushIDs measures what Redis spends delivering post ids into
// a full home timeline (800 entries in its list, with an archive), by
// where an id lands: on top (in order, the usual case), or below depth
// newer entries (a late delivery), one id per call or several per call
// (a backlog delivered together). Besides ns/op, it reports Redis's own CPU time
// per id delivered (from INFO commandstats), the figure that bounds
// delivery throughput:
//
//	go test ./internal/store -run '^$' -bench PushIDs -count 5
func BenchmarkPushIDs(b *testing.B) {
	c, err := redisconn.Dial(redistest.Start(b).URL)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	const capacity, spacing = 800, 1 << 20
	for _, bc := range []struct {
		name         string
		depth, group int
	}{{"in-order", 0, 1}, {"late-1", 1, 1}, {"late-10", 10, 1}, {"late-100", 100, 1}, {"late-799", 799, 1},
		{"in-order-16", 0, 16}, {"late-10-16", 10, 16}, {"late-100-16", 100, 16}, {"late-799-16", 799, 16},
		{"in-order-200", 0, 200}, {"late-10-200", 10, 200}, {"late-100-200", 100, 200}} {
		b.Run(bc.name, func(b *testing.B) {
			key, idx, prefix := "posts:{bench}", "archive:{bench}", "archive:{bench}:"
			base := make([]string, capacity) // ascending, for LPUSH
			for i := range base {
				base[i] = strconv.Itoa((i + 1) * spacing)
			}
			ctx := b.Context()
			if err := redisconn.FirstErr(c.DoMulti(ctx,
				c.B().Flushall().Build(), // the list, the index and the chunks
				c.B().Lpush().Key(key).Element(base...).Build(),
				c.B().ScriptLoad().Script(PushIDs.src).Build(),
				c.B().ConfigResetstat().Build())); err != nil {
				b.Fatal(err)
			}
			// Landing at depth d: just above the entry at d, which stays
			// there while entries land above it.
			below := int64(capacity-bc.depth) * spacing
			next := func(i int) int64 {
				if bc.depth == 0 {
					return int64(capacity+1)*spacing + int64(i)
				}
				return below + int64(i) + 1
			}
			const pipeline = 64
			b.ResetTimer()
			for i := 0; i < b.N; i += pipeline {
				cmds := make(rueidis.Commands, 0, pipeline)
				for k := i; k < min(i+pipeline, b.N); k++ {
					ids := make([]int64, bc.group)
					for g := range ids {
						ids[g] = next(k*bc.group + g)
					}
					cmds = append(cmds, PushIDs.Cmd(c, []string{key, idx}, PushIDsArgs(capacity, DefaultArchiveChunk, prefix, 0, ids)...))
				}
				if err := redisconn.FirstErr(c.DoMulti(ctx, cmds...)); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			usec, calls := evalshaStats(b, c)
			b.ReportMetric(usec/float64(calls*int64(bc.group)), "redis-µs/id")
		})
	}
}

// evalshaStats returns the CPU time (µs) and calls of EVALSHA that
// Redis counted since its last CONFIG RESETSTAT.
func evalshaStats(b *testing.B, c rueidis.Client) (usec float64, calls int64) {
	info, err := c.Do(b.Context(), c.B().Info().Section("commandstats").Build()).ToString()
	if err != nil {
		b.Fatal(err)
	}
	for line := range strings.Lines(info) {
		rest, ok := strings.CutPrefix(strings.TrimSpace(line), "cmdstat_evalsha:")
		if !ok {
			continue
		}
		for field := range strings.SplitSeq(rest, ",") {
			k, v, _ := strings.Cut(field, "=")
			switch k {
			case "calls":
				calls = must.Value(strconv.ParseInt(v, 10, 64))(b)
			case "usec":
				usec = must.Value(strconv.ParseFloat(v, 64))(b)
			}
		}
	}
	if calls == 0 {
		b.Fatal("Redis counted no EVALSHA")
	}
	return usec, calls
}
