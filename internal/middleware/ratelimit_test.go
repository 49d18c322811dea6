package middleware

import (
	"testing"
	"time"
)

func TestLogLimiter(t *testing.T) {
	t.Parallel()
	var l logLimiter
	start := time.Now()
	if ok, left := l.allow(start); !ok || left != 0 {
		t.Fatal("the first line must pass")
	}
	for i := range 5 {
		if ok, _ := l.allow(start.Add(time.Duration(i) * 100 * time.Millisecond)); ok {
			t.Fatalf("line %d within the second passed", i)
		}
	}
	if ok, left := l.allow(start.Add(errorLogEvery)); !ok || left != 5 {
		t.Fatalf("after a second: %v, %d left out; want a line counting 5", ok, left)
	}
}
