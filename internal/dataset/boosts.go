package dataset

import "math/bits"

// boost is a boost of a generated network, as its home timelines see it.
type boost struct {
	id, of  int32 // the boost, and the post it boosts
	author  int32 // the author of the post boosted
	booster int32
}

// boostWindow is how far back a generated boost reaches: it boosts one
// of the posts of the boostWindow ids before it (and never deeper than
// the home timeline cap). A home timeline then remembers every boost of
// a post that came before another (its home_boosts keep the newest
// HomeCap, and fewer ids than that lie between two boosts of a post), so
// that the first boost to reach it is the one it shows, as online.
const boostWindow = 100

// boosts holds the boosts of a dataset, ascending by id, and which ids
// they are (a bit each, and the count of boosts before each word of
// bits), so that a home timeline tells its boosts from its posts, and
// finds them, in constant time. A nil *boosts has none.
type boosts struct {
	list []boost
	is   []uint64
	rank []int32 // boosts below each word of is
}

// add records b, whose id is above those recorded.
func (bs *boosts) add(b boost) {
	for int(b.id)/64 >= len(bs.is) {
		bs.is = append(bs.is, 0)
		bs.rank = append(bs.rank, int32(len(bs.list)))
	}
	bs.is[b.id/64] |= 1 << (b.id % 64)
	bs.list = append(bs.list, b)
}

// find returns the index in bs.list of the boost with the given id, if
// it is one.
func (bs *boosts) find(id int32) (int, bool) {
	if bs == nil || int(id)/64 >= len(bs.is) {
		return 0, false
	}
	word, bit := bs.is[id/64], uint64(1)<<(id%64)
	if word&bit == 0 {
		return 0, false
	}
	return int(bs.rank[id/64]) + bits.OnesCount64(word&(bit-1)), true
}

// isBoost reports whether id is a boost.
func (bs *boosts) isBoost(id int32) bool {
	_, ok := bs.find(id)
	return ok
}

// boosted reports whether booster boosted post of before the boost at
// index i of bs.list (all boosts of of come after it).
func (bs *boosts) boosted(i int, of, booster int32) bool {
	for j := i - 1; j >= 0 && bs.list[j].id > of; j-- {
		if bs.list[j].of == of && bs.list[j].booster == booster {
			return true
		}
	}
	return false
}

// reaches reports whether the boost at index i of bs.list goes onto the
// home timeline of uid, who follows the users follows says, as
// kernel.PushBoost decides: not if uid wrote the post or follows its
// author (they have the post), nor if a boost of the post by uid or by
// someone uid follows came first.
func (bs *boosts) reaches(i int, uid int64, follows func(int64) bool) bool {
	b := bs.list[i]
	if int64(b.author) == uid || follows(int64(b.author)) {
		return false
	}
	for j := i - 1; j >= 0 && bs.list[j].id > b.of; j-- {
		if e := bs.list[j]; e.of == b.of && (int64(e.booster) == uid || follows(int64(e.booster))) {
			return false
		}
	}
	return true
}
