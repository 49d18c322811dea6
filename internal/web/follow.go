package web

import (
	"context"
	"net/http"

	"github.com/retwis/retwis/internal/middleware"
)

// follow serves POST /u/{username}/follow.
func (s *Server) follow(w http.ResponseWriter, r *http.Request) {
	s.changeFollow(w, r, s.store.Follow)
}

// unfollow serves POST /u/{username}/unfollow.
func (s *Server) unfollow(w http.ResponseWriter, r *http.Request) {
	s.changeFollow(w, r, s.store.Unfollow)
}

// changeFollow applies change (follow or unfollow) from the viewer to the
// user named in the path, then goes back to that user's profile.
func (s *Server) changeFollow(w http.ResponseWriter, r *http.Request, change func(ctx context.Context, from, to int64) error) {
	u, _ := middleware.ViewerFrom(r.Context())
	target, err := s.store.UserByName(r.Context(), r.PathValue("username"))
	if err == nil {
		err = change(r.Context(), u.ID, target.ID)
	}
	if err != nil {
		s.mw.Fail(w, r, err)
		return
	}
	http.Redirect(w, r, profilePath(target.Username), http.StatusSeeOther)
}
