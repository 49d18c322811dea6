package api

import (
	"context"
	"net/http"
	"strconv"
	"strings"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/middleware"
	"github.com/retwis/retwis/internal/store/accounts"
)

type tokenKey struct{}

// tokenFrom returns the access token a request was authorized with.
func tokenFrom(ctx context.Context) (retwis.Token, bool) {
	t, ok := ctx.Value(tokenKey{}).(retwis.Token)
	return t, ok
}

// Bearer returns the access token a request carries: in the
// Authorization header, or (as Mastodon accepts, for the streams a
// browser opens) the access_token query parameter.
func Bearer(r *http.Request) string {
	if h := r.Header.Get("Authorization"); h != "" {
		if scheme, token, ok := strings.Cut(h, " "); ok && strings.EqualFold(scheme, "Bearer") {
			return strings.TrimSpace(token)
		}
		return ""
	}
	return r.URL.Query().Get("access_token")
}

// authorize resolves the request's token, if any, and checks that it
// grants scope ("" asks for none). ok is false once the request has been answered: 401 for
// a token that is unknown or revoked, 403 for one without the scope.
func (s *Server) authorize(w http.ResponseWriter, r *http.Request, scope string) (_ *http.Request, ok bool) {
	secret := Bearer(r)
	if secret == "" {
		return r, s.take(w, r, accounts.APIFrom(middleware.ClientAddr(r)))
	}
	t, err := s.store.AuthenticateToken(r.Context(), secret)
	if err != nil {
		s.fail(w, r, err)
		return r, false
	}
	if !s.take(w, r, accounts.APIToken(t)) {
		return r, false
	}
	if scope != "" && !t.Scopes.Allows(scope) {
		renderError(w, r, http.StatusForbidden, "This action is outside the authorized scopes")
		return r, false
	}
	ctx := context.WithValue(r.Context(), tokenKey{}, t)
	if t.User.ID != 0 {
		ctx = middleware.WithViewer(ctx, t.User)
	}
	return r.WithContext(ctx), true
}

// may wraps a route that anyone may call: a token, if given, must be
// valid and grant scope, and its user is then the viewer.
func (s *Server) may(scope string, next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r, ok := s.authorize(w, r, scope); ok {
			next(w, r)
		}
	}
}

// need wraps a route that needs a user's token granting scope: without
// one it answers 401, with an app's own token 422 (as Mastodon does).
func (s *Server) need(scope string, next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		r, ok := s.authorize(w, r, scope)
		if !ok {
			return
		}
		t, ok := tokenFrom(r.Context())
		switch {
		case !ok:
			renderError(w, r, http.StatusUnauthorized, "The access token is invalid")
		case t.User.ID == 0:
			renderError(w, r, http.StatusUnprocessableEntity, "This method requires an authenticated user")
		default:
			next(w, r)
		}
	}
}

// viewer returns the user whose token authorized the request (zero if
// none).
func viewer(r *http.Request) retwis.User {
	u, _ := middleware.ViewerFrom(r.Context())
	return u
}

// TakeStream counts the opening of a live stream against the client
// API's rate limit, as a call: its token's (tokenID, the token's ID), or
// without one its client address's. ok is false once a stream beyond
// the limit has been answered with 429 and Retry-After.
func (s *Server) TakeStream(w http.ResponseWriter, r *http.Request, tokenID string) (ok bool) {
	if tokenID != "" {
		return s.take(w, r, accounts.APIToken(retwis.Token{ID: tokenID}))
	}
	return s.take(w, r, accounts.APIFrom(middleware.ClientAddr(r)))
}

// take counts a call against the rate limit of subject (its token, or
// its client address), and tells the client its quota in Mastodon's
// headers (X-RateLimit-Limit, -Remaining, -Reset). ok is false once a
// call beyond the limit has been answered with 429 and Retry-After.
//
// Counting is a write: when Redis cannot take it (full, or the node of
// the subject's limit away), a read (GET, HEAD) goes on uncounted,
// since the limit must not turn a read that could be served into a
// failure, and another call is answered 503 as its own write would be.
func (s *Server) take(w http.ResponseWriter, r *http.Request, subject accounts.Subject) (ok bool) {
	if s.rate.Off() {
		return true
	}
	q, err := s.store.Take(r.Context(), subject, s.rate)
	if q.Limit > 0 {
		h := w.Header()
		h.Set("X-RateLimit-Limit", strconv.Itoa(q.Limit))
		h.Set("X-RateLimit-Remaining", strconv.Itoa(q.Remaining))
		h.Set("X-RateLimit-Reset", stamp(q.Reset))
	}
	switch {
	case err == nil:
		return true
	case retwis.ErrorKind(err) == retwis.Unavailable && (r.Method == http.MethodGet || r.Method == http.MethodHead):
		return true
	}
	s.fail(w, r, err)
	return false
}

// limited wraps a route that takes no token (an app registering,
// OAuth's endpoints) in the rate limit of its client address.
func (s *Server) limited(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if s.take(w, r, accounts.APIFrom(middleware.ClientAddr(r))) {
			next(w, r)
		}
	}
}
