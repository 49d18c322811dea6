package store

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"github.com/retwis/retwis/internal/redisconn"
	"github.com/retwis/retwis/internal/testkit/redistest"
)

// TestPushIDOrder pushes ids in random order, each several times, past
// the cap: the list always ends up as the newest ids, descending, once.
func TestPushIDOrder(t *testing.T) {
	c, err := redisconn.Dial(redistest.Start(t).URL)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	const capacity = 50
	rng := rand.New(rand.NewPCG(1, 2))
	for round, n := range []int{10, 50, 300} {
		key := "posts:{" + strconv.Itoa(round) + "}"
		var ids []int
		for i := 1; i <= n; i++ {
			ids = append(ids, i, i, i)
		}
		rng.Shuffle(len(ids), func(i, j int) { ids[i], ids[j] = ids[j], ids[i] })
		for _, p := range ids {
			if err := pushID.exec(t.Context(), c, []string{key}, strconv.Itoa(p), strconv.Itoa(capacity)).Error(); err != nil {
				t.Fatal(err)
			}
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
			t.Fatalf("%d ids pushed in random order, three times each: list = %v; want %v", n, got, want)
		}
	}
}
