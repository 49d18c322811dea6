// Package oauth is the client API's OAuth: the registration of apps
// (app_create.go: POST /api/v1/apps, and the app a token was issued to,
// GET /api/v1/apps/verify_credentials), an app's sign-up of a user
// (account_create.go: POST /api/v1/accounts), the token endpoint
// (oauth_token.go: an authorization code, with PKCE, or the client's
// own credentials) and the revocation of tokens (oauth_revoke.go), the
// client authenticated by its id and secret; what an app discovers of
// them (oauth_metadata.go: RFC 8414's metadata) and the profile of a
// token's user (oauth_userinfo.go). Its authorization page is
// an HTML page, internal/web's; the rules of scopes, grants and PKCE
// are the root package's.
package oauth

import (
	"net/http"

	"github.com/retwis/retwis/internal/api/apiwire"
)

// Server serves OAuth's routes of the client API, on the API's kit.
type Server struct{ *apiwire.Kit }

// Routes registers the routes on mux, the client API's.
func (s *Server) Routes(mux *http.ServeMux) {
	mux.HandleFunc("POST /api/v1/apps", s.Limited(s.createApp))
	mux.HandleFunc("GET /api/v1/apps/verify_credentials", s.verifyApp)
	mux.HandleFunc("POST /api/v1/accounts", s.need(apiwire.WriteAccounts, s.MW.Hashing(s.createAccount)))
	mux.HandleFunc("POST /oauth/token", s.Limited(s.createToken))
	mux.HandleFunc("POST /oauth/revoke", s.Limited(s.revokeToken))
	mux.HandleFunc("GET /oauth/userinfo", s.Need(apiwire.Profile, s.serveUserinfo))
	mux.HandleFunc("POST /oauth/userinfo", s.Need(apiwire.Profile, s.serveUserinfo))
	mux.HandleFunc("GET /.well-known/oauth-authorization-server", serveMetadata)
}
