// Package zorder is the arithmetic of a multi-dimensional index kept in a
// Redis sorted set, after the "Multi dimensional indexes" pattern of the
// Redis documentation: each entry's score is a Z-order code, the bits of
// its coordinates interleaved, so that a box query becomes a few score
// ranges (ZRANGE key min max BYSCORE) instead of a scan of one dimension.
//
// A Curve says how many bits each dimension has. Scores are float64,
// which hold integers exactly up to 2^53, so a curve has at most 53 bits
// in all. Coordinates are unsigned integers: offset negative values and
// scale fractional ones before encoding.
//
// Bit layout, most significant first: for each level l, from the largest
// width minus one down to 0, and for each dimension d in order that has
// more than l bits, the next code bit is bit l of the value of d. A
// dimension with fewer bits thus only joins at the lower levels, and any
// prefix of a code fixes a prefix of the bits of every dimension.
//
// Ranges turns a Box into at most a given number of code ranges covering
// it. Entries read from a Range with Inside set are all in the box; the
// others must be filtered with Contains, since coarse ranges may hold
// points outside the box.
package zorder

import (
	"fmt"
	"sync"
)

// maxBits is the number of bits of a code: a float64 score holds every
// integer up to 2^53 exactly.
const maxBits = 53

// Curve is a Z-order curve over len(bits) dimensions, dimension d having
// bits[d] bits. Make one with New; a Curve is immutable and safe for
// concurrent use.
type Curve struct {
	bits []uint8 // bits[d]: the width of dimension d
	dim  []uint8 // dim[p]: the dimension of code bit p, p = 0 the most significant
	lvl  []uint8 // lvl[p]: which bit of that dimension code bit p is
}

// New returns the curve whose dimension d has bits[d] bits. It panics if
// there is no dimension, a dimension has fewer than 1 or more than 53
// bits, or the total exceeds 53 bits: that is a programming error.
func New(bits ...int) Curve {
	if len(bits) < 1 {
		panic("zorder: a curve needs at least one dimension")
	}
	c := Curve{bits: make([]uint8, len(bits))}
	total, widest := 0, 0
	for d, w := range bits {
		if w < 1 || w > maxBits {
			panic(fmt.Sprintf("zorder: dimension %d has %d bits, not 1 to %d", d, w, maxBits))
		}
		c.bits[d] = uint8(w)
		total += w
		widest = max(widest, w)
	}
	if total > maxBits {
		panic(fmt.Sprintf("zorder: %d bits in all, more than %d", total, maxBits))
	}
	c.dim, c.lvl = make([]uint8, 0, total), make([]uint8, 0, total)
	for l := widest - 1; l >= 0; l-- {
		for d, w := range bits {
			if w > l {
				c.dim, c.lvl = append(c.dim, uint8(d)), append(c.lvl, uint8(l))
			}
		}
	}
	return c
}

// Dims returns the number of dimensions.
func (c Curve) Dims() int { return len(c.bits) }

// Max returns the largest value dimension d can hold, 2^bits[d]-1.
func (c Curve) Max(d int) uint64 { return 1<<c.bits[d] - 1 }

// total returns the number of bits of a code.
func (c Curve) total() int { return len(c.dim) }

// Encode interleaves one value per dimension into a code; a value above
// Max(d) is clamped to Max(d). It panics if len(v) != Dims().
func (c Curve) Encode(v ...uint64) uint64 {
	if len(v) != c.Dims() {
		panic(fmt.Sprintf("zorder: Encode got %d values for %d dimensions", len(v), c.Dims()))
	}
	var x [maxBits]uint64
	for d := range v {
		x[d] = min(v[d], c.Max(d))
	}
	var code uint64
	for p, d := range c.dim {
		code = code<<1 | x[d]>>c.lvl[p]&1
	}
	return code
}

// Decode is the inverse of Encode: it returns the value of each
// dimension in code.
func (c Curve) Decode(code uint64) []uint64 {
	v := make([]uint64, c.Dims())
	c.decode(code, v)
	return v
}

// decode writes the values in code to v, which has Dims() elements.
func (c Curve) decode(code uint64, v []uint64) {
	clear(v)
	for p := len(c.dim) - 1; p >= 0; p-- {
		v[c.dim[p]] |= code & 1 << c.lvl[p]
		code >>= 1
	}
}

// Box is an inclusive range per dimension: a point v is in it when
// Min[d] <= v[d] <= Max[d] for every dimension d. Both slices have one
// element per dimension of the curve the box is used with.
type Box struct{ Min, Max []uint64 }

// checkBox panics unless b has one bound of each kind per dimension.
func (c Curve) checkBox(b Box) {
	if len(b.Min) != c.Dims() || len(b.Max) != c.Dims() {
		panic(fmt.Sprintf("zorder: box of %d and %d bounds for %d dimensions",
			len(b.Min), len(b.Max), c.Dims()))
	}
}

// Contains reports whether the point with the given code lies in b. It
// panics if b does not have Dims() bounds of each kind.
func (c Curve) Contains(b Box, code uint64) bool {
	c.checkBox(b)
	var x [maxBits]uint64
	v := x[:c.Dims()]
	c.decode(code, v)
	for d, vd := range v {
		if vd < b.Min[d] || vd > b.Max[d] {
			return false
		}
	}
	return true
}

// Range is an inclusive range of codes, Min <= code <= Max, as the
// scores of ZRANGE key Min Max BYSCORE. Inside reports that every code in
// it lies in the box it was made for, so entries read from it need no
// filtering.
type Range struct {
	Min, Max uint64
	Inside   bool
}

// Ranges decomposes b into at most max (>= 1) sorted, non-overlapping
// code ranges whose union contains every code in b. Adjacent ranges
// (r.Max+1 == next.Min) are merged, Inside only if both were. Box bounds
// above Max(d) are clamped; a box with Min[d] > Max[d] or Min[d] > c.Max(d)
// for some d is empty, and its ranges are nil.
//
// A cell is the set of codes sharing a prefix; it spans a box. Starting
// from the whole space, Ranges splits, level by level, every cell that
// overlaps b only in part into its two halves, keeps the cells inside b
// as Inside ranges and drops those outside it, as long as the ranges and
// open cells of the next level, merged, are at most max; then the open
// cells become ranges that are not Inside. So that the work stays about
// max times the bits of the curve, refinement also stops before a level
// of more than 8*max open cells, counted before merging (adjacent open
// cells are frequent when b spans the whole of some dimensions); the
// ranges are then coarser, but still cover b.
//
// Ranges panics if max < 1 or b does not have Dims() bounds of each kind.
func (c Curve) Ranges(b Box, max int) []Range {
	if max < 1 {
		panic(fmt.Sprintf("zorder: Ranges wants at least 1 range, not %d", max))
	}
	c.checkBox(b)
	dc := pool.Get().(*decomposer)
	defer dc.release()
	if !dc.reset(c, b, max) {
		return nil
	}
	dc.refine()
	return dc.ranges()
}

// openFactor bounds the open cells of a level to openFactor*max.
const openFactor = 8

// How a cell relates to the box.
const (
	partial  = iota // overlaps the box in part
	inside          // lies in the box
	disjoint        // has no point in the box
)

// An item is a range of codes of one level of the decomposition: either
// an open cell, or a range of codes inside the box.
type item struct {
	first, last uint64 // the codes of the item
	cell        int    // the index of an open cell's box, -1 for an inside range
}

// A decomposer is the state of one call of Ranges.
type decomposer struct {
	c                Curve
	lo, hi           []uint64 // the box; no cell goes past Max(d), so hi needs no clamping
	max, maxOpen     int      // the most ranges, and open cells, of a level
	items, next      []item   // this level and the next, in code order
	cells, nextCells []uint64 // per open cell, Dims() lower then Dims() upper bounds
	open, nextOpen   int      // the open cells of items, and of next
	count, runs      int      // the ranges of items, and of next, merged
}

// pool keeps decomposers, so that their buffers serve many calls.
var pool = sync.Pool{New: func() any { return new(decomposer) }}

// The most items, and cell bounds, a pooled decomposer keeps room for.
const (
	poolItems = 1 << 13
	poolWords = 1 << 15
)

// reset makes dc the decomposition of b on c into max ranges,
// at its root: the whole code space as one cell. It reports false if b
// is empty.
func (dc *decomposer) reset(c Curve, b Box, max int) bool {
	n := c.Dims()
	dc.c, dc.max, dc.maxOpen = c, max, max*openFactor
	if max > int(^uint(0)>>1)/openFactor {
		dc.maxOpen = max
	}
	dc.lo, dc.hi = append(dc.lo[:0], b.Min...), append(dc.hi[:0], b.Max...)
	dc.cells = append(dc.cells[:0], make([]uint64, 2*n)...)
	for d := range n {
		if dc.lo[d] > dc.hi[d] || dc.lo[d] > c.Max(d) {
			return false
		}
		dc.cells[n+d] = c.Max(d)
	}
	root := item{0, 1<<c.total() - 1, 0}
	dc.open, dc.count = 1, 1
	if dc.classify(dc.cells) == inside {
		root.cell, dc.open = -1, 0
	}
	dc.items = append(dc.items[:0], root)
	return true
}

// release returns dc to the pool, unless its buffers grew too large.
func (dc *decomposer) release() {
	dc.c = Curve{}
	if cap(dc.items)+cap(dc.next) <= poolItems && cap(dc.cells)+cap(dc.nextCells) <= poolWords {
		pool.Put(dc)
	}
}

// refine splits the open cells, one code bit at a time, while the result
// stays within bounds.
func (dc *decomposer) refine() {
	for p := 0; p < dc.c.total() && dc.open > 0; p++ {
		if !dc.split(p) {
			return
		}
	}
}

// split makes the next level by splitting every open cell on code bit p.
// If the next level would exceed the bounds, it reports false and leaves
// the current level as it is.
func (dc *decomposer) split(p int) bool {
	dc.next, dc.nextCells, dc.nextOpen, dc.runs = dc.next[:0], dc.nextCells[:0], 0, 0
	half := uint64(1) << (dc.c.total() - 1 - p)
	d, bit := int(dc.c.dim[p]), uint64(1)<<dc.c.lvl[p]
	for _, it := range dc.items {
		if it.cell < 0 {
			dc.add(it)
		} else {
			dc.child(it.cell, it.first, it.first+half-1, d, bit, false)
			dc.child(it.cell, it.first+half, it.last, d, bit, true)
		}
		if dc.runs > dc.max || dc.nextOpen > dc.maxOpen {
			return false
		}
	}
	dc.items, dc.next = dc.next, dc.items
	dc.cells, dc.nextCells = dc.nextCells, dc.cells
	dc.open, dc.count = dc.nextOpen, dc.runs
	return true
}

// child adds to the next level the half of open cell parent whose codes
// are first to last: the one whose bit in dimension d is set if upper.
func (dc *decomposer) child(parent int, first, last uint64, d int, bit uint64, upper bool) {
	n := dc.c.Dims()
	i := len(dc.nextCells)
	dc.nextCells = append(dc.nextCells, dc.cells[parent*2*n:(parent+1)*2*n]...)
	cell := dc.nextCells[i:]
	if upper {
		cell[d] |= bit
	} else {
		cell[n+d] &^= bit
	}
	switch dc.classify(cell) {
	case inside:
		dc.nextCells = dc.nextCells[:i]
		dc.add(item{first, last, -1})
	case disjoint:
		dc.nextCells = dc.nextCells[:i]
	default:
		dc.add(item{first, last, i / (2 * n)})
	}
}

// add appends it to the next level, merging it into the previous inside
// range if both are inside ranges and adjacent, and counts the ranges
// the level would have if merged.
func (dc *decomposer) add(it item) {
	if k := len(dc.next); k > 0 && dc.next[k-1].last+1 == it.first {
		if prev := &dc.next[k-1]; prev.cell < 0 && it.cell < 0 {
			prev.last = it.last
			return
		}
	} else {
		dc.runs++
	}
	if it.cell >= 0 {
		dc.nextOpen++
	}
	dc.next = append(dc.next, it)
}

// classify tells how the cell with the given bounds, Dims() lower then
// Dims() upper, relates to the box.
func (dc *decomposer) classify(cell []uint64) int {
	n, in := len(dc.lo), true
	for d := range n {
		lo, hi := cell[d], cell[n+d]
		if hi < dc.lo[d] || lo > dc.hi[d] {
			return disjoint
		}
		in = in && dc.lo[d] <= lo && hi <= dc.hi[d]
	}
	if in {
		return inside
	}
	return partial
}

// ranges returns the current level as merged ranges.
func (dc *decomposer) ranges() []Range {
	out := make([]Range, 0, dc.count)
	for _, it := range dc.items {
		r := Range{Min: it.first, Max: it.last, Inside: it.cell < 0}
		if k := len(out); k > 0 && out[k-1].Max+1 == r.Min {
			out[k-1].Max, out[k-1].Inside = r.Max, out[k-1].Inside && r.Inside
			continue
		}
		out = append(out, r)
	}
	return out
}
