package accounts

import (
	"testing"
	"time"
)

func TestLoginDelay(t *testing.T) {
	t.Parallel()
	now := time.Now()
	ago := func(ds ...time.Duration) []int64 {
		out := make([]int64, len(ds))
		for i, d := range ds {
			out[i] = now.Add(-d).UnixMilli()
		}
		return out
	}
	for _, tc := range []struct {
		failures []int64
		want     time.Duration
	}{
		{nil, 0},
		{ago(1, 2), 0},
		{ago(1, 2, 3), time.Second},
		{ago(1, 2, 3, 4, 5), 4 * time.Second},
		{ago(1, 2, 3, 20*time.Minute, 30*time.Minute), time.Second}, // old failures are forgiven
		{ago(make([]time.Duration, 20)...), loginMaxDelay},
	} {
		if got := loginDelay(tc.failures, now); got != tc.want {
			t.Errorf("%d failures: delay %v; want %v", len(tc.failures), got, tc.want)
		}
	}
}
