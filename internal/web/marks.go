package web

import (
	"context"
	"net/http"
	"strconv"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/middleware"
	"github.com/retwis/retwis/internal/web/page"
	"github.com/retwis/retwis/internal/web/paging"
)

// markPost serves POST /p/{id}/favourite, unfavourite…, which act does,
// then goes back to the form's page, at the post; or says why not (4xx).
func (s *Server) markPost(act func(ctx context.Context, uid, pid int64) (retwis.Post, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		pid, err := postID(r)
		if err == nil {
			_, err = act(r.Context(), middleware.ViewerID(r.Context()), pid)
		}
		if err != nil {
			s.MW.Fail(w, r, err)
			return
		}
		http.Redirect(w, r, middleware.Referrer(r, retwis.PostPath(pid))+"#p"+strconv.FormatInt(pid, 10), http.StatusSeeOther)
	}
}

// postList serves a list of the viewer's posts, newest first, by cursor,
// with the template name: GET /mentions, /favourites, /bookmarks.
func (s *Server) postList(title, name string, read func(ctx context.Context, uid int64, c retwis.Cursor, n int) (retwis.Page, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		u, _ := middleware.ViewerFrom(r.Context())
		mine := func(ctx context.Context, c retwis.Cursor, n int) (retwis.Page, error) { return read(ctx, u.ID, c, n) }
		c, ok := s.PageCursor(w, r, mine)
		if !ok {
			return
		}
		posts, err := mine(r.Context(), c, PageSize)
		if err != nil {
			s.MW.Fail(w, r, err)
			return
		}
		v := page.View{Title: title, Viewer: &u, Page: posts}
		v.Newer, v.Older = paging.Links(r.URL.Path, posts)
		s.Render(w, r, http.StatusOK, name, v)
	}
}
