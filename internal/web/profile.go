package web

import (
	"context"
	"net/http"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/middleware"
	"github.com/retwis/retwis/internal/web/page"
	"github.com/retwis/retwis/internal/web/paging"
)

// profile serves GET /u/{username}: the user's own posts, follower counts
// and, for a logged-in visitor, a Follow or Unfollow button with what
// links them to the user; for an account deleted lately, how far its
// deletion has got (showDeletion). It is one call of the store, which
// reads everything the page shows.
func (s *Server) profile(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("username")
	c, ok := s.PageCursor(w, r, func(ctx context.Context, c retwis.Cursor, n int) (retwis.Page, error) {
		user, err := s.Store.UserByName(ctx, name)
		if err != nil {
			return retwis.Page{}, err
		}
		p, err := s.Store.Profile(ctx, 0, user, c, n)
		return p.Page, err
	})
	if !ok {
		return
	}
	v := page.View{}
	var viewerID int64
	if u, ok := middleware.ViewerFrom(r.Context()); ok {
		v.Viewer, viewerID = &u, u.ID
		v.Reported = r.URL.Query().Get("reported") == "1"
	}
	prof, err := s.Store.ProfilePage(r.Context(), viewerID, name, page.StoreQuery(r, c, PageSize, http.StatusOK))
	if retwis.ErrorKind(err) == retwis.NotFound && s.showDeletion(w, r, name) {
		return
	}
	if err != nil {
		s.MW.Fail(w, r, err)
		return
	}
	v.Title, v.Profile, v.Relationship = prof.Profile.User.Username, prof.Profile, prof.Relationship
	if prof.Header != nil {
		v.Header = prof.Header.Path()
	}
	v.Unread, v.Counted = prof.Unread, true
	v.Newer, v.Older = paging.Links(retwis.ProfilePath(prof.Profile.User.Username), prof.Profile.Page)
	s.Render(w, r, http.StatusOK, "profile", v)
}
