package main

import (
	"errors"
	"testing"
	"time"
)

// TestMeasure: the share counts the requests due before the takeover;
// full service is the takeover or the last failure, the later, and
// none when requests still failed in the observation's last 2 s.
func TestMeasure(t *testing.T) {
	t.Parallel()
	start := time.Unix(1000, 0)
	at := func(ms int) time.Time { return start.Add(time.Duration(ms) * time.Millisecond) }
	failed := errors.New("GET /: 503 Service Unavailable")
	promoted, end := at(2000), at(20_000)
	results := []result{
		{at(0), "home", nil}, {at(500), "post", failed}, {at(1000), "home", failed}, {at(1500), "post", nil},
		{at(2500), "home", nil}, {at(3000), "post", failed}, {at(9000), "home", nil},
		{at(2600), "home", failed}, // answered last: results come in the order they end
	}
	o := measure(results, start, promoted, end)
	if o.requests != 4 || o.served != 2 || o.share() != 0.5 {
		t.Errorf("during the fault: %d of %d served (%v); want 2 of 4", o.served, o.requests, o.share())
	}
	if o.promoted != 2*time.Second || o.full != 3*time.Second {
		t.Errorf("takeover after %v, full service after %v; want 2s and 3s (the last failure)", o.promoted, o.full)
	}
	if o.after != 2 || o.why["post: 503 Service Unavailable"] != 1 || o.why["home: 503 Service Unavailable"] != 1 {
		t.Errorf("after the takeover: %d failed, %v; want a post's 503 and a home page's", o.after, o.why)
	}
	if o := measure(results[:2], start, promoted, end); o.full != 2*time.Second {
		t.Errorf("failures only before the takeover: full service after %v; want the takeover's 2s", o.full)
	}
	late := append(results, result{at(18_500), "home", failed})
	if o := measure(late, start, promoted, end); o.full != -1 {
		t.Errorf("a failure 1.5s before the end: full service after %v; want none (-1)", o.full)
	}
}

func TestMedianRange(t *testing.T) {
	t.Parallel()
	outs := []outcome{{served: 3, requests: 4}, {served: 1, requests: 2}, {served: 9, requests: 10}, {served: 7, requests: 10}}
	got := medianRange(outs, func(o outcome) float64 { return 100 * o.share() }, "%.0f %%")
	if want := "72 % (50 % – 90 %)"; got != want {
		t.Errorf("medianRange = %q; want %q", got, want)
	}
}
