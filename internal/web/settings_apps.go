package web

import (
	"cmp"
	"net/http"
	"strings"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/middleware"
)

// personalScopes are what a personal token the user makes may do.
var personalScopes = retwis.Scopes{"read", "write", "follow"}

// tokensView is what the settings page of apps and tokens shows, and,
// of it, the list of tokens on the sessions page.
type tokensView struct {
	Tokens []retwis.Token
	// New is a personal token just made, shown this once.
	New string
	// Name is the name typed for a personal token that was refused.
	Name string
	// End is where each token's button posts (its page's route), Button
	// what it says.
	End, Button string
}

// scopeText says in words what a scope lets an app do.
func scopeText(scope string) string {
	switch kind, sub, _ := strings.Cut(scope, ":"); {
	case scope == "read":
		return "read your timelines, notifications, follows and profile"
	case scope == "write":
		return "post and delete posts, follow and unfollow, and change your profile, as you"
	case scope == "follow":
		return "see and change whom you follow"
	case scope == "profile":
		return "see your profile"
	case scope == "push":
		return "receive push notifications (this server sends none)"
	case kind == "read":
		return "read your " + sub
	default:
		return "change your " + sub
	}
}

// listTokens serves GET /settings/apps: the apps the viewer authorized
// and their personal tokens, each with when it was last used and a
// button to revoke it, and the form to make a personal token.
func (s *Server) listTokens(w http.ResponseWriter, r *http.Request) {
	s.showTokens(w, r, http.StatusOK, tokensView{}, nil)
}

// showTokens renders the page with v, and err as the form's error.
func (s *Server) showTokens(w http.ResponseWriter, r *http.Request, status int, v tokensView, err error) {
	u, _ := middleware.ViewerFrom(r.Context())
	tokens, lerr := s.store.Tokens(r.Context(), u.ID)
	if lerr != nil {
		s.mw.Fail(w, r, lerr)
		return
	}
	v.Tokens, v.End, v.Button = tokens, "/settings/apps/revoke", "Revoke"
	page := view{Title: "Apps and tokens", Viewer: &u, Tokens: v}
	if err != nil {
		page.Error = retwis.ErrorMessage(err)
	}
	s.render(w, r, status, "apps", page)
}

// revokeToken serves POST /settings/apps/revoke (id): the token stops
// working at once.
func (s *Server) revokeToken(w http.ResponseWriter, r *http.Request) {
	u, _ := middleware.ViewerFrom(r.Context())
	if status, err := parseForm(w, r); err != nil {
		s.showTokens(w, r, status, tokensView{}, err)
		return
	}
	if err := s.store.RevokeToken(r.Context(), u.ID, r.PostFormValue("id")); err != nil {
		if status := middleware.StatusOf(err); status < 500 {
			s.showTokens(w, r, status, tokensView{}, err)
		} else {
			s.mw.Fail(w, r, err)
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
	status, err := parseForm(w, r) // status: why the form could not be read
	name := r.PostFormValue("name")
	var token string
	if err == nil {
		token, err = s.store.CreateToken(r.Context(), u.ID, "", name, personalScopes)
	}
	switch {
	case err == nil:
		s.showTokens(w, r, http.StatusOK, tokensView{New: token}, nil)
	case status == 0 && retwis.ErrorKind(err) != retwis.Invalid:
		s.mw.Fail(w, r, err)
	default:
		if len(name) > 4*retwis.MaxAppNameLen {
			name = ""
		}
		s.showTokens(w, r, cmp.Or(status, http.StatusBadRequest), tokensView{Name: strings.TrimSpace(name)}, err)
	}
}
