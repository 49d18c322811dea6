package middleware

import (
	"net/http"
	"time"
)

// throttleWait is how long a request waits for a write slot before it is
// told the server is busy.
const throttleWait = 5 * time.Second

// Throttle lets at most Options.Writes requests run next at once; the
// others wait their turn, up to throttleWait (then 503, "busy"). The
// interfaces throttle their content writes (posting, following), so that
// a burst of them waits in line rather than taking the processor from
// every page: pages are never throttled, and stay fast during a posting
// storm.
func (s *Stack) Throttle(next http.HandlerFunc) http.HandlerFunc {
	if s.writes == nil {
		return next
	}
	return func(w http.ResponseWriter, r *http.Request) {
		timer := time.NewTimer(throttleWait)
		defer timer.Stop()
		select {
		case s.writes <- struct{}{}:
			defer func() { <-s.writes }()
			if r.Context().Err() == nil { // not gone while it waited
				next(w, r)
				return
			}
		case <-timer.C:
		case <-r.Context().Done(): // the client left, or the request's deadline passed
		}
		w.Header().Set("Retry-After", "1")
		s.opts.RenderError(w, r, http.StatusServiceUnavailable, "The server is busy. Please try again in a moment.")
	}
}
