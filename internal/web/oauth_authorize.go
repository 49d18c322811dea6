package web

import (
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/middleware"
	"github.com/retwis/retwis/internal/web/page"
)

// authorizeParams are the parameters of an authorization request that
// the approval form carries.
var authorizeParams = []string{"client_id", "redirect_uri", "response_type", "scope", "state", "code_challenge", "code_challenge_method"}

// authorizeRequest is an authorization request, checked.
type authorizeRequest struct {
	app      retwis.App
	scopes   retwis.Scopes
	redirect string
	state    string
	params   url.Values
	grantErr string // an error to send back to the app's redirect, if not ""
}

// readAuthorize checks an authorization request's parameters (from the
// query or the form). A request that cannot be sent back to the app
// (unknown app, a redirect URI it did not register or of a scheme
// retwis.RedirectScheme refuses) is an error shown
// on the page; one that can is sent back with grantErr (RFC 6749,
// 4.1.2.1).
func (s *Server) readAuthorize(r *http.Request, v url.Values) (authorizeRequest, error) {
	app, err := s.Store.App(r.Context(), v.Get("client_id"))
	if err != nil {
		return authorizeRequest{}, err
	}
	redirect := v.Get("redirect_uri")
	if redirect == "" && len(app.RedirectURIs) == 1 {
		redirect = app.RedirectURIs[0]
	}
	if !slices.Contains(app.RedirectURIs, redirect) {
		return authorizeRequest{}, retwis.Errorf(retwis.Invalid, "The redirect URI is not one that %s registered.", app.Name)
	}
	if err := retwis.RedirectScheme(redirect); err != nil { // registered before the rule
		return authorizeRequest{}, err
	}
	req := authorizeRequest{app: app, redirect: redirect, state: v.Get("state"), params: url.Values{}}
	for _, k := range authorizeParams {
		if val := v.Get(k); val != "" {
			req.params.Set(k, val)
		}
	}
	req.params.Set("redirect_uri", redirect)
	scopes, err := retwis.ParseScopes(v.Get("scope"))
	challenge, method := v.Get("code_challenge"), v.Get("code_challenge_method")
	switch {
	case v.Get("response_type") != "code":
		req.grantErr = "unsupported_response_type"
	case err != nil || !scopes.Within(app.Scopes):
		req.grantErr = "invalid_scope"
	case challenge != "" && (method != "S256" || !retwis.ValidChallenge(challenge)),
		challenge == "" && method != "":
		req.grantErr = "invalid_request" // PKCE is S256 only: "plain" protects nothing
	}
	req.scopes = scopes
	return req, nil
}

// sendBack redirects to the app's redirect URI with the given
// parameters and the request's state.
func (req authorizeRequest) sendBack(w http.ResponseWriter, r *http.Request, q url.Values) {
	if req.state != "" {
		q.Set("state", req.state)
	}
	// The URI as registered, its query added to: written again by
	// url.URL, icecubesapp:// would lose its slashes. It has no fragment.
	base, query, _ := strings.Cut(req.redirect, "?")
	have, _ := url.ParseQuery(query)
	for k, vals := range q {
		have[k] = vals
	}
	http.Redirect(w, r, base+"?"+have.Encode(), http.StatusFound)
}

// authorize serves GET /oauth/authorize: a logged-in user sees what the
// app asks for and approves or denies it; a visitor logs in first, and
// comes back here.
func (s *Server) authorize(w http.ResponseWriter, r *http.Request) {
	req, err := s.readAuthorize(r, r.URL.Query())
	if err != nil {
		s.authorizeFailed(w, r, err)
		return
	}
	if req.grantErr != "" && req.redirect != retwis.OutOfBand {
		req.sendBack(w, r, url.Values{"error": {req.grantErr}})
		return
	}
	if req.grantErr != "" {
		s.authorizeFailed(w, r, retwis.Errorf(retwis.Invalid, "The app's request is invalid (%s).", req.grantErr))
		return
	}
	v := page.View{Title: "Authorize " + req.app.Name,
		Authorize: page.AuthorizeView{App: req.app, Scopes: req.scopes, Params: req.params}}
	u, ok := middleware.ViewerFrom(r.Context())
	if ok {
		v.Viewer = &u
	} else {
		v.Next = r.URL.RequestURI()
	}
	s.Render(w, r, http.StatusOK, "authorize", v)
}

// decideAuthorize serves POST /oauth/authorize (the approval form, with
// "approve" or "deny"): an approval sends the app a code, or shows it
// to copy when the app has no redirect.
func (s *Server) decideAuthorize(w http.ResponseWriter, r *http.Request) {
	u, _ := middleware.ViewerFrom(r.Context())
	if status, err := page.ParseForm(w, r); err != nil {
		s.RenderError(w, r, status, retwis.ErrorMessage(err))
		return
	}
	req, err := s.readAuthorize(r, r.PostForm)
	if err != nil || req.grantErr != "" {
		s.authorizeFailed(w, r, cmpErr(err, req.grantErr))
		return
	}
	if r.PostFormValue("decision") != "approve" {
		if req.redirect == retwis.OutOfBand {
			http.Redirect(w, r, "/", http.StatusSeeOther)
			return
		}
		req.sendBack(w, r, url.Values{"error": {"access_denied"}})
		return
	}
	code, err := s.Store.CreateCode(r.Context(), retwis.Grant{ClientID: req.app.ClientID, UserID: u.ID, Scopes: req.scopes,
		RedirectURI: req.redirect, Challenge: req.params.Get("code_challenge")})
	if err != nil {
		s.MW.Fail(w, r, err)
		return
	}
	if req.redirect == retwis.OutOfBand {
		s.Render(w, r, http.StatusOK, "authorize", page.View{Title: "Authorized " + req.app.Name, Viewer: &u,
			Authorize: page.AuthorizeView{App: req.app, Scopes: req.scopes, Code: code}})
		return
	}
	req.sendBack(w, r, url.Values{"code": {code}})
}

// cmpErr returns err, or an error for the grant error code.
func cmpErr(err error, grantErr string) error {
	if err != nil {
		return err
	}
	return retwis.Errorf(retwis.Invalid, "The app's request is invalid (%s).", grantErr)
}

// authorizeFailed shows why an authorization request cannot go on.
func (s *Server) authorizeFailed(w http.ResponseWriter, r *http.Request, err error) {
	status := middleware.StatusOf(err)
	if status >= 500 {
		s.MW.Fail(w, r, err)
		return
	}
	s.RenderError(w, r, status, retwis.ErrorMessage(err))
}
