package middleware

import (
	"context"
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

// limitBodies caps every request body at MaxBodyBytes.
func (s *Stack) limitBodies(next http.Handler) http.Handler {
	if s.opts.MaxBodyBytes <= 0 {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Body = http.MaxBytesReader(w, r.Body, s.opts.MaxBodyBytes)
		next.ServeHTTP(w, r)
	})
}
