package hashtags

import (
	"net/http"

	"github.com/retwis/retwis/internal/api/apiwire"
	"github.com/retwis/retwis/internal/api/entity"
)

// follow answers POST /api/v1/tags/{name}/follow (on) and .../unfollow:
// the viewer follows the tag, or no longer does, and the Tag is
// answered as it now stands; a tag nobody used yet may be followed.
func (s *Server) follow(on bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		act := s.follows().Follow
		if !on {
			act = s.follows().Unfollow
		}
		viewer := apiwire.Viewer(r).ID
		name, err := act(r.Context(), viewer, r.PathValue("name"))
		if err != nil {
			s.Fail(w, r, err)
			return
		}
		tags, err := s.Entities(r.Context(), entity.SiteOf(r), viewer, []string{name})
		if err != nil {
			s.Fail(w, r, err)
			return
		}
		apiwire.WriteJSON(w, http.StatusOK, tags[0])
	}
}
