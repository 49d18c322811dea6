package oauth

import (
	"net/http"
	"net/url"
	"time"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/api/apiwire"
)

// client reads the parameters of a request to OAuth's endpoints and
// authenticates the app that sends it, by its client id and secret in
// the body or in HTTP Basic authentication (RFC 6749, 2.3.1); ok is
// false once the request has been answered with OAuth's error.
func (s *Server) client(w http.ResponseWriter, r *http.Request) (retwis.App, url.Values, bool) {
	v, err := apiwire.Params(r)
	if err != nil {
		oauthError(w, apiwire.ParamStatus(err), "invalid_request", err.Error())
		return retwis.App{}, nil, false
	}
	clientID, secret := v.Get("client_id"), v.Get("client_secret")
	if id, sec, ok := r.BasicAuth(); ok {
		clientID, secret = id, sec
	}
	app, err := s.Store.AuthenticateApp(r.Context(), clientID, secret)
	switch {
	case retwis.ErrorKind(err) == retwis.Unauthorized:
		oauthError(w, http.StatusUnauthorized, "invalid_client", retwis.ErrorMessage(err))
		return app, nil, false
	case err != nil:
		s.Fail(w, r, err)
		return app, nil, false
	}
	return app, v, true
}

// token is OAuth's token response, as Mastodon sends it.
type token struct {
	AccessToken string `json:"access_token"`
	TokenType   string `json:"token_type"`
	Scope       string `json:"scope"`
	CreatedAt   int64  `json:"created_at"`
}

// oauthError answers an OAuth error (RFC 6749, section 5.2).
func oauthError(w http.ResponseWriter, status int, code, description string) {
	apiwire.WriteJSON(w, status, apiwire.ErrorEntity{Error: code, ErrorDescription: description})
}

// createToken answers POST /oauth/token: grant_type authorization_code
// (with the PKCE verifier if the authorization had a challenge) or
// client_credentials, the client authenticated by its id and secret in
// the body or in HTTP Basic authentication.
func (s *Server) createToken(w http.ResponseWriter, r *http.Request) {
	app, v, ok := s.client(w, r)
	if !ok {
		return
	}
	switch v.Get("grant_type") {
	case "authorization_code":
		s.exchangeCode(w, r, app, v)
	case "client_credentials":
		scopes, err := retwis.ParseScopes(v.Get("scope"))
		if err != nil || !scopes.Within(app.Scopes) {
			oauthError(w, http.StatusBadRequest, "invalid_scope", "The requested scope is invalid, unknown, or malformed.")
			return
		}
		s.issue(w, r, 0, app, scopes)
	case "":
		oauthError(w, http.StatusBadRequest, "invalid_request", "grant_type is missing.")
	default:
		oauthError(w, http.StatusBadRequest, "unsupported_grant_type", "The grant types are authorization_code and client_credentials.")
	}
}

// exchangeCode turns an authorization code into a token: once, for the
// app it was given to, with the redirect URI it was given for and the
// PKCE verifier of its challenge.
func (s *Server) exchangeCode(w http.ResponseWriter, r *http.Request, app retwis.App, v url.Values) {
	g, err := s.Store.RedeemCode(r.Context(), v.Get("code"))
	if err != nil {
		if retwis.ErrorKind(err) == retwis.Unauthorized {
			oauthError(w, http.StatusBadRequest, "invalid_grant", retwis.ErrorMessage(err))
		} else {
			s.Fail(w, r, err)
		}
		return
	}
	switch {
	case g.ClientID != app.ClientID:
		oauthError(w, http.StatusBadRequest, "invalid_grant", "The authorization code was given to another app.")
	case v.Get("redirect_uri") != g.RedirectURI:
		oauthError(w, http.StatusBadRequest, "invalid_grant", "The redirect URI differs from the authorization's.")
	case !g.VerifyPKCE(v.Get("code_verifier")):
		oauthError(w, http.StatusBadRequest, "invalid_grant", "The PKCE code verifier does not match the challenge.")
	default:
		s.issue(w, r, g.UserID, app, g.Scopes)
	}
}

// issue answers a new token of uid (0: the app's own) for app.
func (s *Server) issue(w http.ResponseWriter, r *http.Request, uid int64, app retwis.App, scopes retwis.Scopes) {
	secret, err := s.Store.CreateToken(r.Context(), uid, app.ClientID, app.Name, scopes)
	if err != nil {
		s.Fail(w, r, err)
		return
	}
	apiwire.WriteJSON(w, http.StatusOK, token{AccessToken: secret, TokenType: "Bearer", Scope: scopes.String(), CreatedAt: time.Now().Unix()})
}
