package loadtest

import (
	"math"
	"math/bits"
	"time"
)

// The histogram is log-linear, in the style of HdrHistogram: values below
// 2^subBits nanoseconds get a bucket each, and every power of two above
// that is split into 2^subBits equal buckets. A bucket is therefore never
// wider than 1/128 (0.8%) of the values it holds, and reporting its
// midpoint is within 0.4% of any of them, from 1µs to maxValue. Memory is
// fixed (about 30 KiB) however long the run, which is the point: storing
// every sample of an hour-long run at 50k req/s would take gigabytes.
const (
	subBits  = 7
	subCount = 1 << subBits
	maxValue = int64(60 * time.Second) // larger values are clamped
)

// numBuckets is one past the bucket of maxValue.
var numBuckets = bucketOf(maxValue) + 1

// histogram counts latencies. The zero value is not usable; use
// newHistogram. It is not safe for concurrent use: each connection keeps
// its own and they are merged once the run is over.
type histogram struct {
	counts   []uint64
	total    uint64
	min, max int64 // exact, so that the extremes are not bucket-rounded
}

func newHistogram() *histogram {
	return &histogram{counts: make([]uint64, numBuckets), min: math.MaxInt64}
}

// bucketOf returns the bucket index of v nanoseconds, 0 <= v <= maxValue.
func bucketOf(v int64) int {
	if v < subCount {
		return int(v)
	}
	// v has n significant bits; keep the top subBits+1 of them (the
	// mantissa, in [subCount, 2*subCount)) and count the dropped ones.
	shift := bits.Len64(uint64(v)) - 1 - subBits
	mantissa := int(v >> shift)
	return shift<<subBits + mantissa
}

// bucketRange returns the smallest and largest values in bucket b.
func bucketRange(b int) (lo, hi int64) {
	if b < subCount {
		return int64(b), int64(b)
	}
	shift := b>>subBits - 1
	mantissa := int64(b - shift<<subBits)
	return mantissa << shift, (mantissa+1)<<shift - 1
}

// record adds one latency. Negative durations count as zero and ones above
// maxValue are clamped into the last bucket, though max stays exact.
func (h *histogram) record(d time.Duration) {
	v := max(int64(d), 0)
	h.counts[bucketOf(min(v, maxValue))]++
	h.total++
	h.min = min(h.min, v)
	h.max = max(h.max, v)
}

// merge adds o's counts to h.
func (h *histogram) merge(o *histogram) {
	for i, c := range o.counts {
		h.counts[i] += c
	}
	h.total += o.total
	h.min = min(h.min, o.min)
	h.max = max(h.max, o.max)
}

// quantile returns the q-quantile (0 < q <= 1) of the recorded values:
// the value of rank ceil(q*total), as the nearest-rank definition has it,
// approximated by the midpoint of its bucket. It is 0 if nothing was
// recorded.
func (h *histogram) quantile(q float64) time.Duration {
	if h.total == 0 {
		return 0
	}
	rank := uint64(math.Ceil(q * float64(h.total)))
	rank = min(max(rank, 1), h.total)
	var seen uint64
	for b, c := range h.counts {
		seen += c
		if seen >= rank {
			lo, hi := bucketRange(b)
			// The exact extremes are better estimates than a midpoint
			// whenever they fall inside the bucket.
			return time.Duration(min(max(lo+(hi-lo)/2, h.min), h.max))
		}
	}
	return time.Duration(h.max) // unreachable: counts sum to total
}
