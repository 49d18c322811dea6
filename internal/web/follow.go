package web

import (
	"context"
	"net/http"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/middleware"
)

// blocksPath is the settings page of blocks and mutes, where the forms
// that undo them send their visitor back to.
const blocksPath = "/settings/blocks"

// follow serves POST /u/{username}/follow.
func (s *Server) follow(w http.ResponseWriter, r *http.Request) {
	s.changeRelation(w, r, s.Store.Follow)
}

// unfollow serves POST /u/{username}/unfollow.
func (s *Server) unfollow(w http.ResponseWriter, r *http.Request) {
	s.changeRelation(w, r, s.Store.Unfollow)
}

// removeFollower serves POST /u/{username}/remove-follower: the user
// named stops following the viewer, who goes back to their followers.
func (s *Server) removeFollower(w http.ResponseWriter, r *http.Request) {
	u, _ := middleware.ViewerFrom(r.Context())
	follower, err := s.Store.UserByName(r.Context(), r.PathValue("username"))
	if err == nil {
		err = s.Store.Unfollow(r.Context(), follower.ID, u.ID)
	}
	if err != nil {
		s.MW.Fail(w, r, err)
		return
	}
	http.Redirect(w, r, retwis.ProfilePath(u.Username)+"/followers", http.StatusSeeOther)
}

// changeRelation applies change (follow, unfollow, block…) from the
// viewer to the user named in the path, then goes back to that user's
// profile, or to the settings of blocks and mutes if the form says
// next=/settings/blocks (no other place: the form field chooses among
// the site's own pages, never an address).
func (s *Server) changeRelation(w http.ResponseWriter, r *http.Request, change func(ctx context.Context, from, to int64) error) {
	u, _ := middleware.ViewerFrom(r.Context())
	target, err := s.Store.UserByName(r.Context(), r.PathValue("username"))
	if err == nil {
		err = change(r.Context(), u.ID, target.ID)
	}
	if err != nil {
		s.MW.Fail(w, r, err)
		return
	}
	next := retwis.ProfilePath(target.Username)
	if r.PostFormValue("next") == blocksPath {
		next = blocksPath
	}
	http.Redirect(w, r, next, http.StatusSeeOther)
}
