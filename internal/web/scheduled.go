package web

import (
	"context"
	"net/http"
	"time"

	"github.com/retwis/retwis/internal/middleware"
	"github.com/retwis/retwis/internal/store/posts"
	"github.com/retwis/retwis/internal/store/scheduled"
	"github.com/retwis/retwis/internal/web/page"
)

// schedulePost schedules d at the compose form's schedule_at (in the zone of
// tz_offset, which a script sets, else UTC), and says whether: not if past.
func (s *Server) schedulePost(r *http.Request, d posts.Draft) (bool, error) {
	at, err := scheduled.ParseAt(r.PostFormValue("schedule_at"), scheduled.Zone(r.PostFormValue("tz_offset")))
	if err != nil || !at.After(time.Now()) {
		return false, err
	}
	_, err = scheduled.New(s.Store).Schedule(r.Context(), scheduled.Of(d, at))
	return err == nil, err
}

// listScheduled serves GET /scheduled: the viewer's scheduled posts, each with Cancel.
func (s *Server) listScheduled(w http.ResponseWriter, r *http.Request) {
	u, _ := middleware.ViewerFrom(r.Context())
	list, err := scheduled.New(s.Store).List(r.Context(), u.ID)
	if err != nil {
		s.MW.Fail(w, r, err)
		return
	}
	s.Render(w, r, http.StatusOK, "scheduled", page.View{Title: "Scheduled posts", Viewer: &u, Scheduled: list})
}

// onID serves a form that does act on the viewer and the path's id (a conversation
// removed, a scheduled post cancelled, an announcement dismissed), then goes to back.
func (s *Server) onID(act func(ctx context.Context, uid, id int64) error, back string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		id, err := postID(r)
		if err == nil {
			err = act(r.Context(), middleware.ViewerID(r.Context()), id)
		}
		if err != nil {
			s.MW.Fail(w, r, err)
			return
		}
		http.Redirect(w, r, back, http.StatusSeeOther)
	}
}
