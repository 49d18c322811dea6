package loadtest

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// exactQuantile is the nearest-rank q-quantile of sorted, the definition
// histogram.quantile approximates.
func exactQuantile(sorted []time.Duration, q float64) time.Duration {
	rank := int(math.Ceil(q * float64(len(sorted))))
	return sorted[min(max(rank, 1), len(sorted))-1]
}

func TestHistogramQuantilesOfKnownDistributions(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	logUniform := func(lo, hi float64) func(int) time.Duration {
		return func(int) time.Duration {
			return time.Duration(math.Exp(math.Log(lo) + rng.Float64()*(math.Log(hi)-math.Log(lo))))
		}
	}
	tests := []struct {
		name   string
		n      int
		sample func(i int) time.Duration
	}{
		{"constant", 1000, func(int) time.Duration { return 5 * time.Millisecond }},
		{"uniform 1µs..100ms", 100_000, func(i int) time.Duration { return time.Duration(i+1) * time.Microsecond }},
		{"exponential mean 2ms", 100_000, func(int) time.Duration { return time.Duration(rng.ExpFloat64() * 2e6) }},
		{"log-uniform 1µs..60s", 100_000, logUniform(1e3, 60e9)},
		{"sub-microsecond", 1000, func(i int) time.Duration { return time.Duration(i%300 + 1) }},
		{"bimodal", 1000, func(i int) time.Duration {
			if i%100 == 0 {
				return time.Second
			}
			return time.Millisecond
		}},
	}
	quantiles := []float64{0.001, 0.1, 0.25, 0.5, 0.9, 0.99, 0.999, 1}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHistogram()
			samples := make([]time.Duration, tt.n)
			for i := range samples {
				samples[i] = tt.sample(i)
				h.record(samples[i])
			}
			slices.Sort(samples)
			for _, q := range quantiles {
				want := exactQuantile(samples, q)
				got := h.quantile(q)
				if relErr := math.Abs(float64(got-want)) / float64(want); relErr > 0.01 {
					t.Errorf("quantile(%v) = %v, want %v ± 1%% (off by %.2f%%)", q, got, want, relErr*100)
				}
			}
			if h.max != int64(samples[len(samples)-1]) || h.min != int64(samples[0]) {
				t.Errorf("min, max = %v, %v; want %v, %v", h.min, h.max, samples[0], samples[len(samples)-1])
			}
		})
	}
}

func TestHistogramExtremes(t *testing.T) {
	tests := []struct {
		name    string
		samples []time.Duration
		p50     time.Duration
		max     int64
	}{
		{"empty", nil, 0, 0},
		{"negative counts as zero", []time.Duration{-time.Second}, 0, 0},
		{"beyond the range keeps an exact max", []time.Duration{time.Hour}, time.Hour, int64(time.Hour)},
		{"constant is exact", []time.Duration{1234567, 1234567, 1234567}, 1234567, 1234567},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHistogram()
			for _, s := range tt.samples {
				h.record(s)
			}
			if got := h.quantile(0.5); got != tt.p50 {
				t.Errorf("p50 = %v, want %v", got, tt.p50)
			}
			if len(tt.samples) > 0 && h.max != tt.max {
				t.Errorf("max = %v, want %v", h.max, tt.max)
			}
		})
	}
}

func TestHistogramMerge(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	whole, a, b := newHistogram(), newHistogram(), newHistogram()
	for i := range 10_000 {
		d := time.Duration(rng.ExpFloat64() * 1e6)
		whole.record(d)
		if i%3 == 0 {
			a.record(d)
		} else {
			b.record(d)
		}
	}
	a.merge(b)
	if !slices.Equal(a.counts, whole.counts) || a.total != whole.total || a.min != whole.min || a.max != whole.max {
		t.Fatal("merging two halves differs from recording the whole")
	}
}

// TestBuckets checks the bucket layout itself: contiguous, covering every
// value up to maxValue, and never wider than 1/subCount of their values.
func TestBuckets(t *testing.T) {
	next := int64(0)
	for b := range numBuckets {
		lo, hi := bucketRange(b)
		if lo != next {
			t.Fatalf("bucket %d starts at %d, want %d", b, lo, next)
		}
		if width := hi - lo + 1; lo >= subCount && float64(width)/float64(lo) > 1.0/subCount {
			t.Fatalf("bucket %d [%d, %d] is %d wide, over 1/%d of its values", b, lo, hi, width, subCount)
		}
		if bucketOf(lo) != b || bucketOf(hi) != b {
			t.Fatalf("bucketOf does not map [%d, %d] to bucket %d", lo, hi, b)
		}
		next = hi + 1
	}
	if next <= maxValue {
		t.Fatalf("buckets end at %d, before maxValue %d", next, maxValue)
	}
}
