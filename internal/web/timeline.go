package web

import (
	"context"
	"net/http"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/middleware"
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
	c, ok := s.pageCursor(w, r, func(ctx context.Context, c retwis.Cursor, n int) (retwis.Page, error) {
		return s.store.GlobalTimeline(ctx, middleware.ViewerID(ctx), c, n)
	})
	if !ok {
		return
	}
	v := view{Title: "Timeline"}
	if u, ok := middleware.ViewerFrom(r.Context()); ok {
		v.Viewer = &u
	}
	page, err := s.store.TimelinePage(r.Context(), middleware.ViewerID(r.Context()),
		storeQuery(r, c, timelinePosts, http.StatusOK), timelineUsers, trendingTags)
	if err != nil {
		s.mw.Fail(w, r, err)
		return
	}
	v.Page, v.Users, v.Trends = page.Page, page.Users, page.Trends
	v.Unread, v.counted = page.Unread, true
	v.Newer, v.Older = paging.Links("/timeline", v.Page)
	s.render(w, r, http.StatusOK, "timeline", v)
}
