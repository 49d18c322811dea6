package web

import (
	"context"
	"net/http"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/middleware"
)

// profile serves GET /u/{username}: the user's own posts, follower counts
// and, for a logged-in visitor, a Follow or Unfollow button; for an
// account deleted lately, how far its deletion has got (showDeletion).
func (s *Server) profile(w http.ResponseWriter, r *http.Request) {
	user, err := s.store.UserByName(r.Context(), r.PathValue("username"))
	if retwis.ErrorKind(err) == retwis.NotFound && s.showDeletion(w, r, r.PathValue("username")) {
		return
	}
	if err != nil {
		s.mw.Fail(w, r, err)
		return
	}
	c, ok := s.pageCursor(w, r, func(ctx context.Context, c retwis.Cursor, n int) (retwis.Page, error) {
		p, err := s.store.Profile(ctx, 0, user, c, n)
		return p.Page, err
	})
	if !ok {
		return
	}
	v := view{Title: user.Username}
	var viewerID int64
	if u, ok := middleware.ViewerFrom(r.Context()); ok {
		v.Viewer, viewerID = &u, u.ID
		v.Reported = r.URL.Query().Get("reported") == "1"
	}
	if v.Profile, err = s.store.Profile(r.Context(), viewerID, user, c, PageSize); err != nil {
		s.mw.Fail(w, r, err)
		return
	}
	if v.Relationship, err = s.store.Relationship(r.Context(), viewerID, user.ID); err != nil {
		s.log.Warn("relationship", "viewer", viewerID, "user", user.ID, "err", err) // the page goes on without it
	}
	v.Newer, v.Older = pageLinks(retwis.ProfilePath(user.Username), v.Profile.Page)
	s.render(w, r, http.StatusOK, "profile", v)
}
