package kernel

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis/internal/redisconn"
	"github.com/retwis/retwis/internal/testkit/must"
	"github.com/retwis/retwis/internal/testkit/redistest"
)

// testTimeline is a timeline's keys in a test database: a list, and an
// archive unless chunk is 0.
type testTimeline struct {
	list, idx, prefix string
	keep, chunk       int
}

func (tl testTimeline) keys() []string {
	if tl.chunk == 0 {
		return []string{tl.list}
	}
	return []string{tl.list, tl.idx}
}

// push runs PushIDs.
func (tl testTimeline) push(t testing.TB, c rueidis.Client, ids []int64) int64 {
	t.Helper()
	n, err := PushIDs.Exec(t.Context(), c, tl.keys(), PushIDsArgs(tl.keep, tl.chunk, tl.prefix, 0, ids)...).AsInt64()
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// read returns the whole timeline, newest first: the list, then the
// chunks of the archive, newest first, after checking that each chunk is
// scored by its oldest id.
func (tl testTimeline) read(t testing.TB, c rueidis.Client) (all []int64, listLen int) {
	t.Helper()
	ctx := t.Context()
	all, err := c.Do(ctx, c.B().Lrange().Key(tl.list).Start(0).Stop(-1).Build()).AsIntSlice()
	if err != nil {
		t.Fatal(err)
	}
	listLen = len(all)
	if tl.chunk == 0 {
		return all, listLen
	}
	chunks, err := c.Do(ctx, c.B().Zrevrange().Key(tl.idx).Start(0).Stop(-1).Withscores().Build()).AsZScores()
	if err != nil {
		t.Fatal(err)
	}
	for _, ch := range chunks {
		ids, err := c.Do(ctx, c.B().Lrange().Key(tl.prefix+ch.Member).Start(0).Stop(-1).Build()).AsIntSlice()
		if err != nil || len(ids) == 0 {
			t.Fatalf("chunk %s: %v, %v", ch.Member, ids, err)
		}
		if int64(ch.Score) != ids[len(ids)-1] {
			t.Fatalf("chunk %s is scored %v; its oldest id is %d", ch.Member, ch.Score, ids[len(ids)-1])
		}
		all = append(all, ids...)
	}
	return all, listLen
}

// descending reports whether ids are in strictly descending order.
func descending(ids []int64) bool {
	return slices.IsSortedFunc(ids, func(a, b int64) int { return cmp.Compare(b, a) }) &&
		len(slices.Compact(slices.Clone(ids))) == len(ids)
}

// TestPushIDsOrder pushes ids in random order, each several times, in
// groups of random sizes, into a capped list and into a timeline with an
// archive: after every call the timeline is descending without repeats
// and its list within bounds; in the end the capped list holds the
// newest ids, and the timeline with an archive every id that was not
// older than its archive when it came.
func TestPushIDsOrder(t *testing.T) {
	t.Parallel()
	c, err := redisconn.Dial(redistest.Start(t).URL)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	rng := rand.New(rand.NewPCG(1, 2))
	for _, chunk := range []int{0, 7} {
		for round, n := range []int{10, 50, 300} {
			for _, group := range []int{1, 3, 40} {
				name := fmt.Sprintf("%d-%d-%d", chunk, round, group)
				tl := testTimeline{list: "posts:{" + name + "}", idx: "archive:{" + name + "}", prefix: "archive:{" + name + "}:", keep: 50, chunk: chunk}
				var ids []int64
				for i := 1; i <= n; i++ {
					ids = append(ids, int64(i), int64(i), int64(i))
				}
				rng.Shuffle(len(ids), func(i, j int) { ids[i], ids[j] = ids[j], ids[i] })
				floor := int64(0) // with an archive: ids older than it may be dropped
				for len(ids) > 0 {
					k := min(len(ids), 1+rng.IntN(group))
					got := tl.push(t, c, ids[:k])
					all, listLen := tl.read(t, c)
					if int(got) != listLen || listLen > tl.keep+tl.chunk || !descending(all) {
						t.Fatalf("%s: after pushing %v: timeline %v (list of %d, %d reported); want descending, no repeats, a list of at most %d",
							name, ids[:k], all, listLen, got, tl.keep+tl.chunk)
					}
					if chunk > 0 && len(all) > listLen {
						floor = all[len(all)-1]
					}
					ids = ids[k:]
				}
				all, _ := tl.read(t, c)
				var want []int64
				for i := int64(n); i >= 1; i-- {
					if (chunk == 0 && len(want) < tl.keep) || (chunk > 0 && i >= floor) {
						want = append(want, i)
					}
				}
				if !slices.Equal(all, want) {
					t.Fatalf("%s: %d ids pushed in random order and groups of up to %d, three times each: timeline = %v; want %v",
						name, n, group, all, want)
				}
			}
		}
	}
}

// TestPageIDs builds a timeline of 500 ids spaced 10 apart in a list of
// 50 and an archive in chunks of 20, then reads it with PageIDs: paging
// with Before cursors from the top, and with After cursors from the
// bottom, each reaches every id once, in order, whatever the page size;
// a cursor that is no id of the timeline finds its place; and the reply
// says which pages reached into the archive.
func TestPageIDs(t *testing.T) {
	t.Parallel()
	c, err := redisconn.Dial(redistest.Start(t).URL)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	tl := testTimeline{list: "posts:{p}", idx: "archive:{p}", prefix: "archive:{p}:", keep: 50, chunk: 20}
	var all []int64
	for i := int64(1); i <= 500; i++ {
		tl.push(t, c, []int64{10 * i})
		all = append([]int64{10 * i}, all...)
	}
	if got, listLen := tl.read(t, c); !slices.Equal(got, all) || listLen > 70 {
		t.Fatalf("timeline of %d ids, list of %d; want the 500 ids, a list of at most 70", len(got), listLen)
	}
	s := &DB{C: c}
	page := func(before, after int64, n int) ([]int64, bool) {
		t.Helper()
		res := c.Do(t.Context(), PageIDs.Cmd(c, tl.keys(), tl.prefix, strconv.FormatInt(before, 10), strconv.FormatInt(after, 10), strconv.Itoa(n)))
		if err := res.Error(); err != nil && err.Error()[:8] == "NOSCRIPT" {
			if err := s.LoadScripts(t.Context()); err != nil {
				t.Fatal(err)
			}
			res = c.Do(t.Context(), PageIDs.Cmd(c, tl.keys(), tl.prefix, strconv.FormatInt(before, 10), strconv.FormatInt(after, 10), strconv.Itoa(n)))
		}
		vals, err := res.ToArray()
		if err != nil || len(vals) != 2 {
			t.Fatalf("PageIDs: %v, %v", vals, err)
		}
		archived := must.Value(vals[0].AsInt64())(t)
		ids, err := vals[1].AsIntSlice()
		if err != nil {
			t.Fatal(err)
		}
		return ids, archived > 0
	}
	listLen := func() int {
		_, n := tl.read(t, c)
		return n
	}()
	for _, n := range []int{1, 7, 20, 33, 51} {
		var got []int64
		before := int64(0)
		for {
			ids, archived := page(before, 0, n)
			if want := len(ids) > 0 && len(got)+len(ids) > listLen; archived != want {
				t.Fatalf("n=%d, before %d: archived = %v; want %v", n, before, archived, want)
			}
			got = append(got, ids...)
			if len(ids) < n {
				break
			}
			before = ids[len(ids)-1]
		}
		if !slices.Equal(got, all) {
			t.Fatalf("n=%d: paging down gave %d ids %v…; want all 500", n, len(got), got[:min(len(got), 10)])
		}
		got = nil
		after := int64(1)
		for {
			ids, _ := page(0, after, n)
			got = append(ids, got...)
			if len(ids) < n {
				break
			}
			after = ids[0]
		}
		if !slices.Equal(got, all) {
			t.Fatalf("n=%d: paging up gave %d ids; want all 500", n, len(got))
		}
	}
	for _, tc := range []struct {
		before, after int64
		want          []int64
	}{
		{before: 4995, want: []int64{4990, 4980, 4970}},  // in the list, no such id
		{before: 1005, want: []int64{1000, 990, 980}},    // in the archive
		{before: 4205, want: []int64{4200, 4190, 4180}},  // at the top of the archive
		{before: 15, want: []int64{10}},                  // the end
		{before: 5, want: nil},                           // past the end
		{before: 99999, want: []int64{5000, 4990, 4980}}, // above everything
		{after: 4995, want: []int64{5000}},               // the top
		{after: 1005, want: []int64{1030, 1020, 1010}},   // in the archive
		{after: 4185, want: []int64{4210, 4200, 4190}},   // across chunks
		{after: 3, want: []int64{30, 20, 10}},            // below everything
		{after: 99999, want: nil},                        // above everything
		{before: 3005, after: 0, want: []int64{3000, 2990, 2980}},
		{after: all[listLen+1] - 5, want: []int64{all[listLen-1], all[listLen], all[listLen+1]}}, // across the archive's top into the list
		{before: all[listLen-1] + 5, want: []int64{all[listLen-1], all[listLen], all[listLen+1]}},
	} {
		if got, _ := page(tc.before, tc.after, 3); !slices.Equal(got, tc.want) {
			t.Errorf("before %d, after %d: %v; want %v", tc.before, tc.after, got, tc.want)
		}
	}
}

// TestDropIDs checks DropIDs against a brute force: random lists with
// repeats, random ids to drop (some absent); the rest stays in order.
func TestDropIDs(t *testing.T) {
	t.Parallel()
	c, err := redisconn.Dial(redistest.Start(t).URL)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := t.Context()
	for round := range 50 {
		key := fmt.Sprint("list:", round)
		var list, drop []string
		for range rand.IntN(2500) {
			list = append(list, strconv.Itoa(rand.IntN(300)))
		}
		for range rand.IntN(40) {
			drop = append(drop, strconv.Itoa(rand.IntN(350)))
		}
		if len(list) > 0 {
			if err := c.Do(ctx, c.B().Rpush().Key(key).Element(list...).Build()).Error(); err != nil {
				t.Fatal(err)
			}
		}
		want := slices.DeleteFunc(slices.Clone(list), func(v string) bool { return slices.Contains(drop, v) })
		n, err := DropIDs.Exec(ctx, c, []string{key}, drop...).AsInt64()
		if err != nil {
			t.Fatal(err)
		}
		got, err := c.Do(ctx, c.B().Lrange().Key(key).Start(0).Stop(-1).Build()).AsStrSlice()
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) || n != int64(len(list)-len(want)) {
			t.Fatalf("round %d: %d dropped, %d left; want %d, %d (in order: %v)", round, n, len(got), len(list)-len(want), len(want), slices.Equal(got, want))
		}
	}
}
