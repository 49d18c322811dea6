package hashtags

import (
	"net/http"
	"time"

	"github.com/retwis/retwis/internal/api/apiwire"
	"github.com/retwis/retwis/internal/api/entity"
)

// showTag answers GET /api/v1/tags/{name}: the tag as first written,
// with its history and whether the viewer follows it; 404 for a tag
// nobody used.
func (s *Server) showTag(w http.ResponseWriter, r *http.Request) {
	name, _, err := s.Store.TagInfo(r.Context(), r.PathValue("name"), 0, time.Now())
	if err != nil {
		s.Fail(w, r, err)
		return
	}
	tags, err := s.Entities(r.Context(), entity.SiteOf(r), apiwire.Viewer(r).ID, []string{name})
	if err != nil {
		s.Fail(w, r, err)
		return
	}
	apiwire.WriteJSON(w, http.StatusOK, tags[0])
}
