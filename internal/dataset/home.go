package dataset

import (
	"container/heap"
	"slices"
)

// postIndex gives each user's post ids (boosts among them) in ascending
// order, and the boosts.
type postIndex interface {
	following(uid int64) []int64
	postsBy(uid int64) []int32
	boosted() *boosts
}

// homeOf returns uid's home timeline in g: the newest limit posts of uid
// and of the users uid follows, newest first, and the boosts among
// theirs that reach uid (boosts.reaches), which it also returns apart.
// It merges the authors' post arrays from their ends with a heap, so a
// user costs O(limit × log authors) whatever those authors have written.
func homeOf(g postIndex, uid int64, limit int) ([]int64, []HomeBoost) {
	h := make(postHeap, 0, 16)
	push := func(author int64) {
		if own := g.postsBy(author); len(own) > 0 {
			h = append(h, cursor{own, len(own) - 1})
		}
	}
	following := g.following(uid)
	push(uid)
	for _, f := range following {
		push(f)
	}
	heap.Init(&h)
	bs, follows := g.boosted(), followsOf(following)
	out := make([]int64, 0, limit)
	var got []HomeBoost
	for len(out) < limit && len(h) > 0 {
		c := &h[0]
		id := c.ids[c.at]
		if c.at--; c.at < 0 {
			heap.Pop(&h)
		} else {
			heap.Fix(&h, 0)
		}
		if i, ok := bs.find(id); !ok {
			out = append(out, int64(id))
		} else if bs.reaches(i, uid, follows) {
			out = append(out, int64(id))
			got = append(got, HomeBoost{ID: int64(id), Of: int64(bs.list[i].of)})
		}
	}
	return out, got
}

// followsOf returns whether a user is among following, which it sorts
// (a copy) the first time it is asked.
func followsOf(following []int64) func(int64) bool {
	var sorted []int64
	return func(u int64) bool {
		if sorted == nil {
			sorted = slices.Sorted(slices.Values(following))
		}
		_, ok := slices.BinarySearch(sorted, u)
		return ok
	}
}

// cursor walks one author's ascending post ids from the end.
type cursor struct {
	ids []int32
	at  int
}

// postHeap is a max-heap of cursors by their current id.
type postHeap []cursor

func (h postHeap) Len() int           { return len(h) }
func (h postHeap) Less(i, j int) bool { return h[i].ids[h[i].at] > h[j].ids[h[j].at] }
func (h postHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *postHeap) Push(x any)        { *h = append(*h, x.(cursor)) }
func (h *postHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
