package middleware

import (
	"sync"
	"time"
)

// errorLogEvery is the least time between two error lines of failed
// requests: during an outage every request fails the same way, and one
// line a second (with the count of those left out) says as much as
// thousands.
const errorLogEvery = time.Second

// logLimiter lets one line through per errorLogEvery and counts the rest.
type logLimiter struct {
	mu         sync.Mutex
	last       time.Time
	suppressed int
}

// allow reports whether a line may be logged now, and how many were left
// out since the last one that was.
func (l *logLimiter) allow(now time.Time) (ok bool, suppressed int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if now.Sub(l.last) < errorLogEvery {
		l.suppressed++
		return false, 0
	}
	l.last, suppressed, l.suppressed = now, l.suppressed, 0
	return true, suppressed
}
