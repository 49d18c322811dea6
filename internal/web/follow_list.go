package web

import (
	"net/http"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/middleware"
	"github.com/retwis/retwis/internal/web/paging"
)

// followListSize is how many users a page of a follow list shows.
const followListSize = 30

// followList returns the handler of GET /u/{username}/followers (which
// is "followers") or /u/{username}/following ("following"): the users,
// the most recent first, with since when, paged by ?before= and ?after=
// (a user of the list).
func (s *Server) followList(which string) http.HandlerFunc {
	read := s.store.Followers
	title := "Followers of "
	if which == "following" {
		read, title = s.store.Following, "Followed by "
	}
	return func(w http.ResponseWriter, r *http.Request) {
		c, err := paging.ParseCursor(r.URL.Query(), "user")
		if err != nil {
			s.mw.Fail(w, r, err)
			return
		}
		user, err := s.store.UserByName(r.Context(), r.PathValue("username"))
		if err != nil {
			s.mw.Fail(w, r, err)
			return
		}
		page, err := read(r.Context(), user.ID, c, followListSize)
		if err != nil {
			s.mw.Fail(w, r, err)
			return
		}
		v := view{Title: title + user.Username, List: followListView{Of: user, Which: which, Page: page}}
		if u, ok := middleware.ViewerFrom(r.Context()); ok {
			v.Viewer = &u
		}
		v.Newer, v.Older = followLinks(retwis.ProfilePath(user.Username)+"/"+which, page)
		s.render(w, r, http.StatusOK, "follows", v)
	}
}

// followListView is what a follow list page shows.
type followListView struct {
	Of    retwis.User // whose list
	Which string      // "followers" or "following"
	Page  retwis.FollowPage
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
