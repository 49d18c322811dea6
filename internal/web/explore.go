package web

import (
	"net/http"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/middleware"
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
	v := view{Title: "Explore"}
	if u, ok := middleware.ViewerFrom(r.Context()); ok {
		v.Viewer = &u
	}
	q := r.URL.Query()
	v.Explore.Form = exploreForm{Followers: q.Get("followers"), Posts: q.Get("posts"),
		JoinedFrom: q.Get("joined_from"), JoinedTo: q.Get("joined_to")}
	d, err := v.Explore.Form.directory()
	if err == nil && v.Explore.Form != (exploreForm{}) {
		v.Explore.Asked = true
		v.Explore.Listing, err = s.store.Explore(r.Context(), d, exploreResults)
	}
	if err != nil {
		status := middleware.StatusOf(err)
		if status >= 500 {
			s.mw.Fail(w, r, err)
			return
		}
		v.Error, v.Explore.Asked = retwis.ErrorMessage(err), false
		s.render(w, r, status, "explore", v)
		return
	}
	s.render(w, r, http.StatusOK, "explore", v)
}

// exploreForm is the directory's form, as typed.
type exploreForm struct {
	Followers, Posts     string
	JoinedFrom, JoinedTo string
}

// directory reads the form into a query.
func (f exploreForm) directory() (retwis.Directory, error) {
	var d retwis.Directory
	var err error
	if d.Followers, err = retwis.ParseRange(f.Followers); err != nil {
		return d, retwis.Errorf(retwis.Invalid, "Followers: %s", retwis.ErrorMessage(err))
	}
	if d.Posts, err = retwis.ParseRange(f.Posts); err != nil {
		return d, retwis.Errorf(retwis.Invalid, "Posts this week: %s", retwis.ErrorMessage(err))
	}
	if d.JoinedFrom, err = retwis.ParseDay(f.JoinedFrom, "Joined from"); err != nil {
		return d, err
	}
	if d.JoinedTo, err = retwis.ParseDay(f.JoinedTo, "Joined until"); err != nil {
		return d, err
	}
	return d, d.Validate()
}

// exploreView is the explore page.
type exploreView struct {
	Form    exploreForm
	Asked   bool // a query was made
	Listing retwis.Listing
}
