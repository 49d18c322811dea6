package middleware

import (
	"context"
	"errors"
	"math"
	"net/http"
	"strconv"
	"time"

	"github.com/retwis/retwis"
)

// StatusOf maps an error's kind to an HTTP status: the one place where
// domain errors meet HTTP.
func StatusOf(err error) int {
	switch retwis.ErrorKind(err) {
	case retwis.Invalid:
		return http.StatusBadRequest
	case retwis.Conflict:
		return http.StatusConflict
	case retwis.NotFound:
		return http.StatusNotFound
	case retwis.Unauthorized:
		return http.StatusUnauthorized
	case retwis.Unavailable:
		return http.StatusServiceUnavailable
	case retwis.Forbidden:
		return http.StatusForbidden
	case retwis.TooMany:
		return http.StatusTooManyRequests
	case retwis.Canceled:
		// Nobody is left to read it; 499 is not a standard status.
		return http.StatusBadRequest
	}
	return http.StatusInternalServerError
}

// Fail answers a request whose operation failed: the error's kind decides
// the status, its message is rendered, and the failure is logged as
// [Stack.LogFailure] says.
func (s *Stack) Fail(w http.ResponseWriter, r *http.Request, err error) {
	status := StatusOf(err)
	SetRetryAfter(w, err)
	s.LogFailure(r, status, err)
	s.opts.RenderError(w, r, status, retwis.ErrorMessage(err))
}

// LogFailure logs a request that failed with err and is answered with
// status, for handlers that render the failure themselves (a form shown
// again with its error). A client that went away is no error and is
// logged at Debug (its request line says 499); a server-side fault
// (status 500 and up, such as an unavailable database) at Error, at
// most one line a second, saying how many failures it leaves out; the
// user's own mistakes not at all.
func (s *Stack) LogFailure(r *http.Request, status int, err error) {
	switch {
	case clientWentAway(r, err):
		s.log.Debug("client went away", "method", r.Method, "path", r.URL.Path, "err", err)
	case status >= http.StatusInternalServerError:
		if ok, left := s.errorLog.allow(time.Now()); ok {
			s.log.Error("request failed", "method", r.Method, "path", r.URL.Path, "status", status, "err", err,
				"failures_not_logged", left)
		}
	}
}

// clientWentAway reports whether the request failed because its client
// went away: its context is cancelled, or err says so (a Canceled error,
// or a cancelled context however it was wrapped). An error that merely
// happened meanwhile (a command's own deadline) does not count then.
func clientWentAway(r *http.Request, err error) bool {
	return errors.Is(r.Context().Err(), context.Canceled) ||
		retwis.ErrorKind(err) == retwis.Canceled || errors.Is(err, context.Canceled)
}

// RetryUnavailable is the Retry-After of an answer to a request that
// failed because the database could not serve it (503): about the time
// a Redis cluster takes to fail over, or a node's circuit to close.
const RetryUnavailable = 5 * time.Second

// SetRetryAfter sets the Retry-After header (whole seconds, rounded up)
// of the answer to an action a rate limit refused, if err is one, or
// that the database could not serve (kind Unavailable: RetryUnavailable).
func SetRetryAfter(w http.ResponseWriter, err error) {
	if l, ok := errors.AsType[*retwis.Limited](err); ok {
		w.Header().Set("Retry-After", strconv.Itoa(int(math.Ceil(l.Quota.RetryAfter.Seconds()))))
	} else if retwis.ErrorKind(err) == retwis.Unavailable {
		w.Header().Set("Retry-After", strconv.Itoa(int(RetryUnavailable.Seconds())))
	}
}
