package web

import (
	"net/http"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/middleware"
	"github.com/retwis/retwis/internal/web/page"
)

// exploreResults is how many accounts the directory lists.
const exploreResults = 30

// explore serves GET /explore?followers=MIN-MAX&posts=MIN-MAX, with
// joined_from and joined_to (YYYY-MM-DD) optional: the directory of
// accounts whose follower count, posts of the last seven days and day
// of sign-up fall in the ranges, the most followed first. Without any
// range it shows the form alone; a malformed range shows the form again
// with the reason, and a 400.
func (s *Server) explore(w http.ResponseWriter, r *http.Request) {
	v := page.View{Title: "Explore"}
	if u, ok := middleware.ViewerFrom(r.Context()); ok {
		v.Viewer = &u
	}
	q := r.URL.Query()
	v.Explore.Form = page.ExploreForm{Followers: q.Get("followers"), Posts: q.Get("posts"),
		JoinedFrom: q.Get("joined_from"), JoinedTo: q.Get("joined_to")}
	d, err := v.Explore.Form.Directory()
	if err == nil && v.Explore.Form != (page.ExploreForm{}) {
		v.Explore.Asked = true
		v.Explore.Listing, err = s.Store.Explore(r.Context(), d, exploreResults)
	}
	if err != nil {
		status := middleware.StatusOf(err)
		if status >= 500 {
			s.MW.Fail(w, r, err)
			return
		}
		v.Error, v.Explore.Asked = retwis.ErrorMessage(err), false
		s.Render(w, r, status, "explore", v)
		return
	}
	s.Render(w, r, http.StatusOK, "explore", v)
}
