package oauth

import (
	"net/http"
	"strings"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/api/apiwire"
	"github.com/retwis/retwis/internal/api/entity"
)

// createApp answers POST /api/v1/apps (client_name, redirect_uris,
// scopes, website): the app, with its client id and secret.
func (s *Server) createApp(w http.ResponseWriter, r *http.Request) {
	v, err := apiwire.Params(r)
	if err != nil {
		apiwire.BadRequest(w, r, err)
		return
	}
	scopes, err := retwis.ParseScopes(v.Get("scopes"))
	if err != nil {
		s.Fail(w, r, err)
		return
	}
	redirects, err := retwis.ParseRedirectURIs(apiwire.List(v, "redirect_uris"))
	if err != nil {
		s.Fail(w, r, err)
		return
	}
	app, secret, err := s.Store.CreateApp(r.Context(), retwis.App{
		Name: strings.TrimSpace(v.Get("client_name")), Website: v.Get("website"), RedirectURIs: redirects, Scopes: scopes,
	})
	if err != nil {
		s.Fail(w, r, err)
		return
	}
	out := appEntity(app)
	out.ClientID, out.ClientSecret, out.VapidKey = app.ClientID, secret, s.VapidKey(r.Context())
	apiwire.WriteJSON(w, http.StatusOK, out)
}

// appEntity returns the Application entity of app, without its
// credentials.
func appEntity(app retwis.App) entity.Application {
	out := entity.Application{ID: app.ClientID, Name: app.Name, Scopes: app.Scopes, RedirectURIs: app.RedirectURIs,
		RedirectURI: strings.Join(app.RedirectURIs, "\n")}
	if app.Website != "" {
		out.Website = &app.Website
	}
	return out
}

// verifyApp answers GET /api/v1/apps/verify_credentials: the app a
// token was issued to, as Mastodon 4.3 shows it (its id, scopes and
// redirect URIs, not its secret), whatever the token's scopes.
func (s *Server) verifyApp(w http.ResponseWriter, r *http.Request) {
	r, ok := s.Authorize(w, r, "")
	if !ok {
		return
	}
	t, ok := apiwire.TokenFrom(r.Context())
	if !ok || t.ClientID == "" {
		apiwire.RenderError(w, r, http.StatusUnauthorized, "The access token is invalid")
		return
	}
	app, err := s.Store.App(r.Context(), t.ClientID)
	if err != nil {
		s.Fail(w, r, err)
		return
	}
	out := appEntity(app)
	out.VapidKey = s.VapidKey(r.Context())
	apiwire.WriteJSON(w, http.StatusOK, out)
}
