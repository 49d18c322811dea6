package apiwire

import (
	"context"
	"net/http"
	"strconv"
	"strings"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/api/entity"
	"github.com/retwis/retwis/internal/middleware"
	"github.com/retwis/retwis/internal/store/accounts"
)

type tokenKey struct{}

// TokenFrom returns the access token a request was authorized with.
func TokenFrom(ctx context.Context) (retwis.Token, bool) {
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

// Authorize resolves the request's token, if any, and checks that it
// grants scope ("" asks for none); the request it returns carries the
// token (TokenFrom) and its user as the viewer. ok is false once the
// request has been answered: 401 for a token that is unknown or
// revoked, 403 for one without the scope, 429 beyond the rate limit.
func (k *Kit) Authorize(w http.ResponseWriter, r *http.Request, scope string) (_ *http.Request, ok bool) {
	secret := Bearer(r)
	if secret == "" {
		return r, k.take(w, r, accounts.APIFrom(middleware.ClientAddr(r)))
	}
	t, err := k.Store.AuthenticateToken(r.Context(), secret)
	if err != nil {
		k.Fail(w, r, err)
		return r, false
	}
	if !k.take(w, r, accounts.APIToken(t)) {
		return r, false
	}
	if scope != "" && !t.Scopes.Allows(scope) {
		RenderError(w, r, http.StatusForbidden, "This action is outside the authorized scopes")
		return r, false
	}
	ctx := context.WithValue(r.Context(), tokenKey{}, t)
	if t.User.ID != 0 {
		ctx = middleware.WithViewer(ctx, t.User)
	}
	return r.WithContext(ctx), true
}

// May wraps a route that anyone may call: a token, if given, must be
// valid and grant scope, and its user is then the viewer.
func (k *Kit) May(scope string, next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r, ok := k.Authorize(w, r, scope); ok {
			next(w, r)
		}
	}
}

// Need wraps a route that needs a user's token granting scope: without
// one it answers 401, with an app's own token 422 (as Mastodon does).
func (k *Kit) Need(scope string, next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		r, ok := k.Authorize(w, r, scope)
		if !ok {
			return
		}
		t, ok := TokenFrom(r.Context())
		switch {
		case !ok:
			RenderError(w, r, http.StatusUnauthorized, "The access token is invalid")
		case t.User.ID == 0:
			RenderError(w, r, http.StatusUnprocessableEntity, "This method requires an authenticated user")
		default:
			next(w, r)
		}
	}
}

// Viewer returns the user whose token authorized the request (zero if
// none).
func Viewer(r *http.Request) retwis.User {
	u, _ := middleware.ViewerFrom(r.Context())
	return u
}

// TakeStream counts the opening of a live stream against the client
// API's rate limit, as a call: its token's (tokenID, the token's ID), or
// without one its client address's. ok is false once a stream beyond
// the limit has been answered with 429 and Retry-After.
func (k *Kit) TakeStream(w http.ResponseWriter, r *http.Request, tokenID string) (ok bool) {
	if tokenID != "" {
		return k.take(w, r, accounts.APIToken(retwis.Token{ID: tokenID}))
	}
	return k.take(w, r, accounts.APIFrom(middleware.ClientAddr(r)))
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
func (k *Kit) take(w http.ResponseWriter, r *http.Request, subject accounts.Subject) (ok bool) {
	if k.rate.Off() {
		return true
	}
	q, err := k.Store.Take(r.Context(), subject, k.rate)
	if q.Limit > 0 {
		h := w.Header()
		h.Set("X-RateLimit-Limit", strconv.Itoa(q.Limit))
		h.Set("X-RateLimit-Remaining", strconv.Itoa(q.Remaining))
		h.Set("X-RateLimit-Reset", entity.Stamp(q.Reset))
	}
	switch {
	case err == nil:
		return true
	case retwis.ErrorKind(err) == retwis.Unavailable && (r.Method == http.MethodGet || r.Method == http.MethodHead):
		return true
	}
	k.Fail(w, r, err)
	return false
}

// Limited wraps a route that takes no token (an app registering,
// OAuth's endpoints) in the rate limit of its client address.
func (k *Kit) Limited(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if k.take(w, r, accounts.APIFrom(middleware.ClientAddr(r))) {
			next(w, r)
		}
	}
}

// TakeSignup counts a sign-up from the request's client address against
// Signups, on the count the sign-up page keeps, so that the page and the
// apps share one limit. ok is false once a sign-up beyond it has been
// answered with 429 and Retry-After.
func (k *Kit) TakeSignup(w http.ResponseWriter, r *http.Request) (ok bool) {
	if _, err := k.Store.Take(r.Context(), accounts.SignupFrom(middleware.ClientAddr(r)), k.Signups); err != nil {
		k.Fail(w, r, err)
		return false
	}
	return true
}
