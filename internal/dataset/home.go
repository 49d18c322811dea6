package dataset

import "container/heap"

// postIndex gives each user's post ids in ascending order.
type postIndex interface {
	following(uid int64) []int64
	postsBy(uid int64) []int32
}

// homeOf returns uid's home timeline in g: the newest limit posts of uid
// and of the users uid follows, newest first. It merges the authors' post
// arrays from their ends with a heap, so a user costs O(limit × log
// authors) whatever those authors have written.
func homeOf(g postIndex, uid int64, limit int) []int64 {
	h := make(postHeap, 0, 16)
	push := func(author int64) {
		if own := g.postsBy(author); len(own) > 0 {
			h = append(h, cursor{own, len(own) - 1})
		}
	}
	push(uid)
	for _, f := range g.following(uid) {
		push(f)
	}
	heap.Init(&h)
	out := make([]int64, 0, limit)
	for len(out) < limit && len(h) > 0 {
		c := &h[0]
		out = append(out, int64(c.ids[c.at]))
		if c.at--; c.at < 0 {
			heap.Pop(&h)
		} else {
			heap.Fix(&h, 0)
		}
	}
	return out
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
