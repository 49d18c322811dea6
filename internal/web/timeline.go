package web

import (
	"context"
	"net/http"
	"time"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/middleware"
)

// Sizes of the global timeline page.
const (
	timelinePosts = 50
	timelineUsers = 10
	trendingTags  = 10
)

// timeline serves GET /timeline: the latest posts of everybody (paged by
// cursor through the newest 1000), the most recently registered users,
// and the tags trending in the last hours.
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
	var err error
	if v.Users, err = s.store.LatestUsers(r.Context(), timelineUsers); err != nil {
		s.mw.Fail(w, r, err)
		return
	}
	if v.Page, err = s.store.GlobalTimeline(r.Context(), middleware.ViewerID(r.Context()), c, timelinePosts); err != nil {
		s.mw.Fail(w, r, err)
		return
	}
	if v.Trends, err = s.store.Trending(r.Context(), trendingTags, time.Now()); err != nil {
		s.log.Warn("trending tags", "err", err) // the page goes on without them
	}
	v.Newer, v.Older = pageLinks("/timeline", v.Page)
	s.render(w, r, http.StatusOK, "timeline", v)
}
