package web

import (
	"context"
	"net/http"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/middleware"
	"github.com/retwis/retwis/internal/web/page"
	"github.com/retwis/retwis/internal/web/paging"
)

// Sizes of the global timeline page.
const (
	timelinePosts = 50
	timelineUsers = 10
	trendingTags  = 10
)

// timeline serves GET /timeline: the latest posts of everybody (paged by
// cursor through the newest 1000), the most recently registered users,
// and the tags trending in the last hours. It is one call of the store,
// which reads everything the page shows.
func (s *Server) timeline(w http.ResponseWriter, r *http.Request) {
	c, ok := s.PageCursor(w, r, func(ctx context.Context, c retwis.Cursor, n int) (retwis.Page, error) {
		return s.Store.GlobalTimeline(ctx, middleware.ViewerID(ctx), c, n)
	})
	if !ok {
		return
	}
	v := page.View{Title: "Timeline"}
	if u, ok := middleware.ViewerFrom(r.Context()); ok {
		v.Viewer = &u
	}
	tl, err := s.Store.TimelinePage(r.Context(), middleware.ViewerID(r.Context()),
		page.StoreQuery(r, c, timelinePosts, http.StatusOK), timelineUsers, trendingTags)
	if err != nil {
		s.MW.Fail(w, r, err)
		return
	}
	v.Page, v.Users, v.Trends = tl.Page, tl.Users, tl.Trends
	v.Unread, v.Counted = tl.Unread, true
	v.Newer, v.Older = paging.Links("/timeline", v.Page)
	s.Render(w, r, http.StatusOK, "timeline", v)
}
