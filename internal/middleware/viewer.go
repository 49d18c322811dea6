package middleware

import (
	"context"
	"net/http"

	"github.com/retwis/retwis"
)

// Authenticator resolves the secret a request carries to the user it
// belongs to. *store.Store is one. A secret that belongs to nobody gives
// an error of kind Unauthorized.
type Authenticator interface {
	Authenticate(ctx context.Context, secret string) (retwis.User, error)
}

// Credential extracts the secret a request carries, or "" when it carries
// none: the HTML interface reads a cookie, an API a bearer token.
type Credential func(r *http.Request) string

type viewerKey struct{}

// WithViewer returns ctx carrying u as the logged-in user.
func WithViewer(ctx context.Context, u retwis.User) context.Context {
	return context.WithValue(ctx, viewerKey{}, u)
}

// ViewerFrom returns the logged-in user carried by ctx, if any.
func ViewerFrom(ctx context.Context) (retwis.User, bool) {
	u, ok := ctx.Value(viewerKey{}).(retwis.User)
	return u, ok
}

// ViewerID returns the id of the logged-in user carried by ctx, or 0.
func ViewerID(ctx context.Context) int64 {
	u, _ := ViewerFrom(ctx)
	return u.ID
}

// Viewer resolves the request's credential to its user and puts the user
// in the request context for next. A request without a credential, or
// with one that Auth refuses, goes on without a viewer (after Refused);
// any other failure, such as an unavailable database, is answered with
// [Stack.Fail].
func (s *Stack) Viewer(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		secret := s.opts.Credential(r)
		if secret == "" {
			next(w, r)
			return
		}
		u, err := s.opts.Auth.Authenticate(r.Context(), secret)
		switch {
		case err == nil:
			r = r.WithContext(WithViewer(r.Context(), u))
		case retwis.ErrorKind(err) == retwis.Unauthorized:
			if s.opts.Refused != nil {
				s.opts.Refused(w, r)
			}
		default:
			s.Fail(w, r, err)
			return
		}
		next(w, r)
	}
}
