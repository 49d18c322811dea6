package web

import (
	"net/http"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/middleware"
	"github.com/retwis/retwis/internal/web/page"
	"github.com/retwis/retwis/internal/web/paging"
)

// followListSize is how many users a page of a follow list shows.
const followListSize = 30

// followList returns the handler of GET /u/{username}/followers (which
// is "followers") or /u/{username}/following ("following"): the users,
// the most recent first, with since when, paged by ?before= and ?after=
// (a user of the list).
func (s *Server) followList(which string) http.HandlerFunc {
	read := s.Store.Followers
	title := "Followers of "
	if which == "following" {
		read, title = s.Store.Following, "Followed by "
	}
	return func(w http.ResponseWriter, r *http.Request) {
		c, err := paging.ParseCursor(r.URL.Query(), "user")
		if err != nil {
			s.MW.Fail(w, r, err)
			return
		}
		user, err := s.Store.UserByName(r.Context(), r.PathValue("username"))
		if err != nil {
			s.MW.Fail(w, r, err)
			return
		}
		follows, err := read(r.Context(), user.ID, c, followListSize)
		if err != nil {
			s.MW.Fail(w, r, err)
			return
		}
		v := page.View{Title: title + user.Username, List: page.FollowListView{Of: user, Which: which, Page: follows}}
		if u, ok := middleware.ViewerFrom(r.Context()); ok {
			v.Viewer = &u
		}
		v.Newer, v.Older = followLinks(retwis.ProfilePath(user.Username)+"/"+which, follows)
		s.Render(w, r, http.StatusOK, "follows", v)
	}
}

// followLinks returns the links to the newer and older neighbours of a
// page of a follow list at base.
func followLinks(base string, p retwis.FollowPage) (newer, older string) {
	ids := make([]int64, len(p.Follows))
	for i, f := range p.Follows {
		ids[i] = f.User.ID
	}
	return paging.CursorLinks(base, ids, p.Newer, p.Older)
}
