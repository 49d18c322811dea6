package store

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/retwis/retwis/internal/redisconn"
	"github.com/retwis/retwis/internal/testkit/redistest"
)

// TestPushIDsOrder pushes ids in random order, each several times, in
// groups of random sizes, past the cap: the list is descending without
// repeats after every call, and ends up as the newest ids.
func TestPushIDsOrder(t *testing.T) {
	c, err := redisconn.Dial(redistest.Start(t).URL)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	const capacity = 50
	rng := rand.New(rand.NewPCG(1, 2))
	for round, n := range []int{10, 50, 300} {
		for _, group := range []int{1, 3, 40} {
			key := fmt.Sprintf("posts:{%d-%d}", round, group)
			var ids []int64
			for i := 1; i <= n; i++ {
				ids = append(ids, int64(i), int64(i), int64(i))
			}
			rng.Shuffle(len(ids), func(i, j int) { ids[i], ids[j] = ids[j], ids[i] })
			for len(ids) > 0 {
				k := min(len(ids), 1+rng.IntN(group))
				n, err := pushIDs.exec(t.Context(), c, []string{key}, pushIDsArgs(capacity, ids[:k])...).AsInt64()
				if err != nil {
					t.Fatal(err)
				}
				list, _ := c.Do(t.Context(), c.B().Lrange().Key(key).Start(0).Stop(-1).Build()).AsIntSlice()
				if int(n) != len(list) || len(list) > capacity || len(slices.Compact(slices.Clone(list))) != len(list) ||
					!slices.IsSortedFunc(list, func(a, b int64) int { return cmp.Compare(b, a) }) {
					t.Fatalf("after pushing %v: list = %v, length %d reported; want descending, no repeats, at most %d", ids[:k], list, n, capacity)
				}
				ids = ids[k:]
			}
			got, err := c.Do(t.Context(), c.B().Lrange().Key(key).Start(0).Stop(-1).Build()).AsIntSlice()
			if err != nil {
				t.Fatal(err)
			}
			var want []int64
			for i := n; i >= max(1, n-capacity+1); i-- {
				want = append(want, int64(i))
			}
			if !slices.Equal(got, want) {
				t.Fatalf("%d ids pushed in random order and groups of up to %d, three times each: list = %v; want %v", n, group, got, want)
			}
		}
	}
}
