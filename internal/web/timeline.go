package web

import (
	"net/http"
)

// Sizes of the global timeline page.
const (
	timelinePosts = 50
	timelineUsers = 10
)

// timeline serves GET /timeline: the latest posts of everybody and the
// most recently registered users.
func (s *Server) timeline(w http.ResponseWriter, r *http.Request) {
	v := view{Title: "Timeline"}
	if u, ok := viewerFrom(r); ok {
		v.Viewer = &u
	}
	var err error
	if v.Users, err = s.store.LatestUsers(r.Context(), timelineUsers); err != nil {
		s.fail(w, r, err)
		return
	}
	if v.Posts, err = s.store.GlobalTimeline(r.Context(), timelinePosts); err != nil {
		s.fail(w, r, err)
		return
	}
	s.render(w, http.StatusOK, "timeline", v)
}
