package web

import (
	"cmp"
	"net/http"
	"strings"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/middleware"
	"github.com/retwis/retwis/internal/web/page"
)

// personalScopes are what a personal token the user makes may do.
var personalScopes = retwis.Scopes{"read", "write", "follow"}

// listTokens serves GET /settings/apps: the apps the viewer authorized
// and their personal tokens, each with when it was last used and a
// button to revoke it, and the form to make a personal token.
func (s *Server) listTokens(w http.ResponseWriter, r *http.Request) {
	s.showTokens(w, r, http.StatusOK, page.TokensView{}, nil)
}

// showTokens renders the page with v, and err as the form's error.
func (s *Server) showTokens(w http.ResponseWriter, r *http.Request, status int, v page.TokensView, err error) {
	u, _ := middleware.ViewerFrom(r.Context())
	tokens, lerr := s.Store.Tokens(r.Context(), u.ID)
	if lerr != nil {
		s.MW.Fail(w, r, lerr)
		return
	}
	v.Tokens, v.End, v.Button = tokens, "/settings/apps/revoke", "Revoke"
	pv := page.View{Title: "Apps and tokens", Viewer: &u, Tokens: v}
	if err != nil {
		pv.Error = retwis.ErrorMessage(err)
	}
	s.Render(w, r, status, "apps", pv)
}

// revokeToken serves POST /settings/apps/revoke (id): the token stops
// working at once.
func (s *Server) revokeToken(w http.ResponseWriter, r *http.Request) {
	u, _ := middleware.ViewerFrom(r.Context())
	if status, err := page.ParseForm(w, r); err != nil {
		s.showTokens(w, r, status, page.TokensView{}, err)
		return
	}
	if err := s.Store.RevokeToken(r.Context(), u.ID, r.PostFormValue("id")); err != nil {
		if status := middleware.StatusOf(err); status < 500 {
			s.showTokens(w, r, status, page.TokensView{}, err)
		} else {
			s.MW.Fail(w, r, err)
		}
		return
	}
	http.Redirect(w, r, "/settings/apps", http.StatusSeeOther)
}

// createToken serves POST /settings/apps/token (name): a personal token
// with the scopes read, write and follow, shown once. A name the store
// refuses (retwis.NormalizeTokenName) shows the form again with 400.
func (s *Server) createToken(w http.ResponseWriter, r *http.Request) {
	u, _ := middleware.ViewerFrom(r.Context())
	status, err := page.ParseForm(w, r) // status: why the form could not be read
	name := r.PostFormValue("name")
	var token string
	if err == nil {
		token, err = s.Store.CreateToken(r.Context(), u.ID, "", name, personalScopes)
	}
	switch {
	case err == nil:
		s.showTokens(w, r, http.StatusOK, page.TokensView{New: token}, nil)
	case status == 0 && retwis.ErrorKind(err) != retwis.Invalid:
		s.MW.Fail(w, r, err)
	default:
		if len(name) > 4*retwis.MaxAppNameLen {
			name = ""
		}
		s.showTokens(w, r, cmp.Or(status, http.StatusBadRequest), page.TokensView{Name: strings.TrimSpace(name)}, err)
	}
}
