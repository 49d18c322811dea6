package web

import (
	"net/http"

	"github.com/retwis/retwis/internal/middleware"
)

// dismissSuggestion serves POST /u/{username}/dismiss: the user is never
// suggested to the viewer again (the home page's who to follow, the
// client API's suggestions); back to the home page.
func (s *Server) dismissSuggestion(w http.ResponseWriter, r *http.Request) {
	u, _ := middleware.ViewerFrom(r.Context())
	target, err := s.Store.UserByName(r.Context(), r.PathValue("username"))
	if err == nil {
		err = s.Store.DismissSuggestion(r.Context(), u.ID, target.ID)
	}
	if err != nil {
		s.MW.Fail(w, r, err)
		return
	}
	http.Redirect(w, r, "/", http.StatusSeeOther)
}
