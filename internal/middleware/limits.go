package middleware

import (
	"context"
	"io"
	"net/http"
)

// limitTime bounds each request's context by the Timeout.
func (s *Stack) limitTime(next http.Handler) http.Handler {
	if s.opts.Timeout <= 0 {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), s.opts.Timeout)
		defer cancel()
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

// limitBodies caps every request body at MaxBodyBytes, keeping the body
// as it came for a route that takes more (LargeBody).
func (s *Stack) limitBodies(next http.Handler) http.Handler {
	if s.opts.MaxBodyBytes <= 0 {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Body = cappedBody{http.MaxBytesReader(w, r.Body, s.opts.MaxBodyBytes), r.Body}
		next.ServeHTTP(w, r)
	})
}

// cappedBody is a request body capped by limitBodies, with the body as
// it came.
type cappedBody struct {
	io.ReadCloser
	raw io.ReadCloser
}

// LargeBody wraps a route that takes bodies of up to n bytes (uploads),
// more than the stack's MaxBodyBytes: it caps the body at n instead,
// before anything read it.
func LargeBody(n int64, next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if c, ok := r.Body.(cappedBody); ok {
			r.Body = http.MaxBytesReader(w, c.raw, n)
		}
		next(w, r)
	}
}
