package web

import (
	"context"
	"net/http"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/middleware"
	"github.com/retwis/retwis/internal/web/paging"
)

// addressed returns the handler of a page of the posts addressed to the
// viewer, newest first, by cursor, as read reads them: GET /mentions
// (the posts that mention the viewer), GET /direct (the direct posts
// the viewer wrote or is mentioned in). Its template is named as its
// path.
func (s *Server) addressed(path, title string, read func(ctx context.Context, uid int64, c retwis.Cursor, n int) (retwis.Page, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		u, _ := middleware.ViewerFrom(r.Context())
		c, ok := s.pageCursor(w, r, func(ctx context.Context, c retwis.Cursor, n int) (retwis.Page, error) {
			return read(ctx, u.ID, c, n)
		})
		if !ok {
			return
		}
		page, err := read(r.Context(), u.ID, c, PageSize)
		if err != nil {
			s.mw.Fail(w, r, err)
			return
		}
		v := view{Title: title, Viewer: &u, Page: page}
		v.Newer, v.Older = paging.Links(path, page)
		s.render(w, r, http.StatusOK, path[1:], v)
	}
}
