package web

import (
	"net/http"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/middleware"
	"github.com/retwis/retwis/internal/store/tagfollows"
	"github.com/retwis/retwis/internal/web/page"
)

// followedTagsPath is the settings page of the tags followed.
const followedTagsPath = "/settings/tags"

// followTag serves POST /tag/{tag}/follow (on) and .../unfollow: the
// viewer follows the tag, whose public posts then reach their home
// timeline, or no longer does; back to the tag's page, or to the page of
// the tags followed if the form came from there.
func (s *Server) followTag(on bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		u, _ := middleware.ViewerFrom(r.Context())
		act := tagfollows.New(s.Store).Follow
		if !on {
			act = tagfollows.New(s.Store).Unfollow
		}
		name, err := act(r.Context(), u.ID, r.PathValue("tag"))
		if err != nil {
			s.MW.Fail(w, r, err)
			return
		}
		next := retwis.TagPath(name)
		if r.PostFormValue("next") == followedTagsPath {
			next = followedTagsPath
		}
		http.Redirect(w, r, next, http.StatusSeeOther)
	}
}

// listFollowedTags serves GET /settings/tags: the tags the viewer
// follows, the latest followed first, each with a button that unfollows
// it.
func (s *Server) listFollowedTags(w http.ResponseWriter, r *http.Request) {
	u, _ := middleware.ViewerFrom(r.Context())
	tags, _, err := tagfollows.New(s.Store).Followed(r.Context(), u.ID, retwis.Cursor{}, tagfollows.MaxFollowed)
	if err != nil {
		s.MW.Fail(w, r, err)
		return
	}
	s.Render(w, r, http.StatusOK, "followed_tags", page.View{Title: "Followed tags", Viewer: &u, FollowedTags: tags})
}
