package zorder_test

import (
	"math/bits"
	"math/rand/v2"
	"slices"
	"sort"
	"sync"
	"testing"

	"github.com/retwis/retwis/internal/zorder"
)

func TestEncodeLayout(t *testing.T) {
	tests := []struct {
		bits []int
		v    []uint64
		code uint64
	}{
		// v0.bit1, v0.bit0, v1.bit0
		{[]int{2, 1}, []uint64{2, 1}, 0b101},
		{[]int{2, 1}, []uint64{1, 0}, 0b010},
		{[]int{2, 1}, []uint64{3, 1}, 0b111},
		// v0.bit1, v1.bit1, v0.bit0, v1.bit0
		{[]int{2, 2}, []uint64{2, 1}, 0b1001},
		{[]int{2, 2}, []uint64{1, 2}, 0b0110},
		// v1.bit2, v1.bit1, v0.bit0, v1.bit0
		{[]int{1, 3}, []uint64{1, 4}, 0b1010},
		{[]int{1, 3}, []uint64{1, 3}, 0b0111},
		{[]int{1, 3}, []uint64{0, 5}, 0b1001},
		// v0.b2, v2.b2, v0.b1, v1.b1, v2.b1, v0.b0, v1.b0, v2.b0
		{[]int{3, 2, 3}, []uint64{0b100, 0b01, 0b011}, 0b10_001_011},
		{[]int{3, 2, 3}, []uint64{0b011, 0b10, 0b100}, 0b01_110_100},
		// The example of the Redis documentation: x = 75, y = 200 on 9 bits.
		{[]int{9, 9}, []uint64{75, 200}, 0b000111000011001010},
		{[]int{53}, []uint64{1<<53 - 2}, 1<<53 - 2},
		// Clamping to Max(d).
		{[]int{2, 1}, []uint64{100, 5}, 0b111},
		{[]int{1, 3}, []uint64{0, 1 << 60}, 0b1101},
	}
	for _, tt := range tests {
		c := zorder.New(tt.bits...)
		if got := c.Encode(tt.v...); got != tt.code {
			t.Errorf("New(%v).Encode(%v) = %#b, want %#b", tt.bits, tt.v, got, tt.code)
		}
		want := make([]uint64, len(tt.v))
		for d, x := range tt.v {
			want[d] = min(x, c.Max(d))
		}
		if got := c.Decode(tt.code); !slices.Equal(got, want) {
			t.Errorf("New(%v).Decode(%#b) = %v, want %v", tt.bits, tt.code, got, want)
		}
	}
}

func TestRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, widths := range [][]int{{1}, {53}, {20, 16, 17}, {1, 52}, {5, 1, 7, 3}, {2, 3, 2}} {
		c := zorder.New(widths...)
		total := 0
		for _, b := range widths {
			total += b
		}
		if c.Dims() != len(widths) {
			t.Errorf("New(%v).Dims() = %d", widths, c.Dims())
		}
		for d, b := range widths {
			if c.Max(d) != 1<<b-1 {
				t.Errorf("New(%v).Max(%d) = %d", widths, d, c.Max(d))
			}
		}
		for range 200 {
			v := randPoint(r, c)
			code := c.Encode(v...)
			if code >= 1<<total {
				t.Fatalf("New(%v).Encode(%v) = %d, beyond %d bits", widths, v, code, total)
			}
			if got := c.Decode(code); !slices.Equal(got, v) {
				t.Fatalf("New(%v): Decode(Encode(%v)) = %v", widths, v, got)
			}
			code = r.Uint64N(1 << total)
			if got := c.Encode(c.Decode(code)...); got != code {
				t.Fatalf("New(%v): Encode(Decode(%d)) = %d", widths, code, got)
			}
		}
	}
}

func TestPanics(t *testing.T) {
	c := zorder.New(3, 3)
	tests := map[string]func(){
		"no dims":       func() { zorder.New() },
		"zero bits":     func() { zorder.New(3, 0) },
		"54 bits":       func() { zorder.New(54) },
		"over 53":       func() { zorder.New(30, 24) },
		"encode arity":  func() { c.Encode(1) },
		"contains box":  func() { c.Contains(zorder.Box{Min: []uint64{0}, Max: []uint64{1, 1}}, 0) },
		"ranges box":    func() { c.Ranges(zorder.Box{Min: []uint64{0, 0}, Max: []uint64{1}}, 4) },
		"ranges max 0":  func() { c.Ranges(zorder.Box{Min: []uint64{0, 0}, Max: []uint64{1, 1}}, 0) },
		"ranges max -1": func() { c.Ranges(zorder.Box{Min: []uint64{0, 0}, Max: []uint64{1, 1}}, -1) },
	}
	for name, f := range tests {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("no panic")
				}
			}()
			f()
		})
	}
}

func TestRangesEdges(t *testing.T) {
	c := zorder.New(3, 2)
	box := func(lo0, lo1, hi0, hi1 uint64) zorder.Box {
		return zorder.Box{Min: []uint64{lo0, lo1}, Max: []uint64{hi0, hi1}}
	}
	tests := []struct {
		name string
		box  zorder.Box
		want []zorder.Range
	}{
		{"min above max", box(2, 0, 1, 3), nil},
		{"min above curve", box(8, 0, 9, 3), nil},
		{"min above curve 2", box(0, 4, 7, 9), nil},
		{"everything", box(0, 0, 7, 3), []zorder.Range{{0, 31, true}}},
		{"clamped", box(0, 0, 1<<40, 99), []zorder.Range{{0, 31, true}}},
		{"one point", box(5, 2, 5, 2), []zorder.Range{{c.Encode(5, 2), c.Encode(5, 2), true}}},
		// The cell of prefix 1: v0 >= 4.
		{"upper half", box(4, 0, 7, 3), []zorder.Range{{16, 31, true}}},
	}
	for _, tt := range tests {
		for _, max := range []int{1, 3, 100} {
			if got := c.Ranges(tt.box, max); !slices.Equal(got, tt.want) {
				t.Errorf("%s, max %d: Ranges = %v, want %v", tt.name, max, got, tt.want)
			}
		}
	}
	big := zorder.New(20, 16, 17)
	all := zorder.Box{Min: make([]uint64, 3), Max: []uint64{1 << 20, 1 << 16, 1<<17 - 1}}
	if got, want := big.Ranges(all, 1), []zorder.Range{{0, 1<<53 - 1, true}}; !slices.Equal(got, want) {
		t.Errorf("whole space: Ranges = %v, want %v", got, want)
	}
	// A box aligned on a cell of the 53-bit curve is one range.
	lo := []uint64{0xabc << 4, 0x12 << 4, 0x345 << 4}
	hi := []uint64{lo[0] | 15, lo[1] | 15, lo[2] | 15}
	want := []zorder.Range{{big.Encode(lo...), big.Encode(hi...), true}}
	if got := big.Ranges(zorder.Box{Min: lo, Max: hi}, 1); !slices.Equal(got, want) {
		t.Errorf("aligned box: Ranges = %v, want %v", got, want)
	}
}

// TestRangesBrute checks Ranges against every code of small curves.
func TestRangesBrute(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, widths := range [][]int{{3, 3}, {4, 2}, {2, 3, 2}, {1, 4}, {6}} {
		c := zorder.New(widths...)
		for range 200 {
			b := randBox(r, c, 2)
			in := members(t, c, b)
			for _, max := range []int{1, 2, 4, 16, 1000} {
				rs := c.Ranges(b, max)
				checkAll(t, b, in, max, rs)
				if max == 1000 {
					checkExact(t, c, b, rs)
				}
			}
		}
	}
}

func TestContains(t *testing.T) {
	c := zorder.New(2, 3, 2)
	b := zorder.Box{Min: []uint64{1, 2, 0}, Max: []uint64{2, 9, 1}}
	for code := range uint64(1 << 7) {
		v := c.Decode(code)
		want := v[0] >= 1 && v[0] <= 2 && v[1] >= 2 && v[2] <= 1
		if got := c.Contains(b, code); got != want {
			t.Errorf("Contains(%v) = %v, want %v", v, got, want)
		}
	}
}

// TestRangesBig checks Ranges on a 53-bit curve by sampling points.
func TestRangesBig(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	c := zorder.New(20, 16, 17)
	const limit = 64
	for i := range 200 {
		b := randBox(r, c, 0)
		if i%3 == 0 { // narrow boxes
			for d := range c.Dims() {
				b.Max[d] = min(b.Min[d]+r.Uint64N(1000), c.Max(d))
			}
		}
		rs := c.Ranges(b, limit)
		checkShape(t, limit, rs)
		if isEmpty(b) != (rs == nil) {
			t.Fatalf("box %v: ranges %v", b, rs)
		}
		if rs == nil {
			continue
		}
		for range 30 {
			v := make([]uint64, c.Dims())
			for d := range v {
				v[d] = b.Min[d] + r.Uint64N(min(b.Max[d], c.Max(d))-b.Min[d]+1)
			}
			if code := c.Encode(v...); find(rs, code) < 0 {
				t.Fatalf("box %v: point %v, code %d, not covered by %v", b, v, code, rs)
			}
			rg := rs[r.IntN(len(rs))]
			if code := rg.Min + r.Uint64N(rg.Max-rg.Min+1); rg.Inside && !c.Contains(b, code) {
				t.Fatalf("box %v: code %d of inside range %v is not in it", b, code, rg)
			}
		}
	}
}

// TestRangesConcurrent lets the race detector watch Ranges share its
// buffers between goroutines.
func TestRangesConcurrent(t *testing.T) {
	c := zorder.New(20, 16, 17)
	b := zorder.Box{Min: []uint64{100, 200, 300}, Max: []uint64{90000, 5000, 70000}}
	want := c.Ranges(b, 64)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 20 {
				if got := c.Ranges(b, 64); !slices.Equal(got, want) {
					t.Errorf("Ranges = %v, want %v", got, want)
					return
				}
			}
		})
	}
	wg.Wait()
}

func FuzzRanges(f *testing.F) {
	f.Add(uint8(0), uint8(0), uint8(0), uint8(7), uint8(3), uint8(7), uint8(1))
	f.Add(uint8(1), uint8(1), uint8(2), uint8(6), uint8(2), uint8(5), uint8(3))
	f.Add(uint8(3), uint8(0), uint8(0), uint8(3), uint8(9), uint8(0), uint8(200))
	f.Add(uint8(5), uint8(2), uint8(6), uint8(2), uint8(1), uint8(7), uint8(2))
	f.Add(uint8(2), uint8(0), uint8(1), uint8(250), uint8(3), uint8(4), uint8(0))
	c := zorder.New(3, 2, 3)
	f.Fuzz(func(t *testing.T, lo0, lo1, lo2, hi0, hi1, hi2, max uint8) {
		b := zorder.Box{
			Min: []uint64{uint64(lo0), uint64(lo1), uint64(lo2)},
			Max: []uint64{uint64(hi0), uint64(hi1), uint64(hi2)},
		}
		m := int(max%20) + 1
		checkAll(t, b, members(t, c, b), m, c.Ranges(b, m))
	})
}

func BenchmarkRanges(b *testing.B) {
	r := rand.New(rand.NewPCG(7, 8))
	c := zorder.New(20, 16, 17)
	boxes := make([]zorder.Box, 256)
	for i := range boxes {
		boxes[i] = randBox(r, c, 0)
	}
	n := 0
	for i := 0; b.Loop(); i++ {
		n += len(c.Ranges(boxes[i%len(boxes)], 64))
	}
	b.ReportMetric(float64(n)/float64(b.N), "ranges/op")
}

// randPoint returns a random point of c.
func randPoint(r *rand.Rand, c zorder.Curve) []uint64 {
	v := make([]uint64, c.Dims())
	for d := range v {
		v[d] = r.Uint64N(c.Max(d) + 1)
	}
	return v
}

// randBox returns a random box of c; bounds go up to over past Max(d),
// and one box in ten is empty.
func randBox(r *rand.Rand, c zorder.Curve, over uint64) zorder.Box {
	b := zorder.Box{Min: make([]uint64, c.Dims()), Max: make([]uint64, c.Dims())}
	for d := range b.Min {
		x, y := r.Uint64N(c.Max(d)+1+over), r.Uint64N(c.Max(d)+1+over)
		b.Min[d], b.Max[d] = min(x, y), max(x, y)
	}
	if r.IntN(10) == 0 {
		d := r.IntN(c.Dims())
		b.Min[d], b.Max[d] = b.Max[d]+1, b.Min[d]
	}
	return b
}

// isEmpty reports whether b has a dimension with Min > Max.
func isEmpty(b zorder.Box) bool {
	for d := range b.Min {
		if b.Min[d] > b.Max[d] {
			return true
		}
	}
	return false
}

// inBox reports whether v is in b, without the package's help.
func inBox(b zorder.Box, v []uint64) bool {
	for d := range v {
		if v[d] < b.Min[d] || v[d] > b.Max[d] {
			return false
		}
	}
	return true
}

// find returns the index of the range of rs holding code, or -1.
func find(rs []zorder.Range, code uint64) int {
	i := sort.Search(len(rs), func(i int) bool { return rs[i].Max >= code })
	if i < len(rs) && rs[i].Min <= code {
		return i
	}
	return -1
}

// checkShape checks that rs are at most max sorted, disjoint, merged ranges.
func checkShape(t *testing.T, max int, rs []zorder.Range) {
	t.Helper()
	if len(rs) > max {
		t.Fatalf("%d ranges, more than %d: %v", len(rs), max, rs)
	}
	for i, r := range rs {
		if r.Min > r.Max || i > 0 && rs[i-1].Max+1 >= r.Min {
			t.Fatalf("ranges not sorted, disjoint and merged: %v", rs)
		}
	}
}

// members returns, for every code of the small curve c, whether it is
// in b, and checks Contains on the way.
func members(t *testing.T, c zorder.Curve, b zorder.Box) []bool {
	t.Helper()
	in := make([]bool, 1<<bitsOf(c))
	for code := range in {
		in[code] = inBox(b, c.Decode(uint64(code)))
		if c.Contains(b, uint64(code)) != in[code] {
			t.Fatalf("box %v: Contains(%d) = %v", b, code, !in[code])
		}
	}
	return in
}

// checkAll checks rs against every code of a small curve, in[code]
// telling whether code is in b.
func checkAll(t *testing.T, b zorder.Box, in []bool, max int, rs []zorder.Range) {
	t.Helper()
	checkShape(t, max, rs)
	if !slices.Contains(in, true) && rs != nil {
		t.Fatalf("empty box %v: ranges %v, want nil", b, rs)
	}
	for code := range in {
		i := find(rs, uint64(code))
		if in[code] && i < 0 {
			t.Fatalf("box %v, max %d: code %d not covered by %v", b, max, code, rs)
		}
		if !in[code] && i >= 0 && rs[i].Inside {
			t.Fatalf("box %v, max %d: code %d outside, but in inside range %v", b, max, code, rs[i])
		}
	}
}

// checkExact checks that rs are exactly the codes in b, all inside.
func checkExact(t *testing.T, c zorder.Curve, b zorder.Box, rs []zorder.Range) {
	t.Helper()
	for _, r := range rs {
		for code := r.Min; code <= r.Max; code++ {
			if !r.Inside || !inBox(b, c.Decode(code)) {
				t.Fatalf("box %v: ranges %v are not exact", b, rs)
			}
		}
	}
}

// bitsOf returns the number of bits of the codes of c.
func bitsOf(c zorder.Curve) int {
	n := 0
	for d := range c.Dims() {
		n += bits.Len64(c.Max(d))
	}
	return n
}
