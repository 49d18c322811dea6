package web

import (
	"context"
	"net/http"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/middleware"
	"github.com/retwis/retwis/internal/web/paging"
)

// mentions serves GET /mentions: the posts that mention the viewer,
// newest first, by cursor.
func (s *Server) mentions(w http.ResponseWriter, r *http.Request) {
	u, _ := middleware.ViewerFrom(r.Context())
	c, ok := s.pageCursor(w, r, func(ctx context.Context, c retwis.Cursor, n int) (retwis.Page, error) {
		return s.store.Mentions(ctx, u.ID, c, n)
	})
	if !ok {
		return
	}
	page, err := s.store.Mentions(r.Context(), u.ID, c, PageSize)
	if err != nil {
		s.mw.Fail(w, r, err)
		return
	}
	v := view{Title: "Mentions", Viewer: &u, Page: page}
	v.Newer, v.Older = paging.Links("/mentions", page)
	s.render(w, r, http.StatusOK, "mentions", v)
}
