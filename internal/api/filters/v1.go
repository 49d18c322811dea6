package filters

import (
	"net/http"

	"github.com/retwis/retwis/internal/api/apiwire"
	"github.com/retwis/retwis/internal/api/entity"
)

// v1List answers GET /api/v1/filters: each keyword of the viewer's
// filters as a v1 filter, as Mastodon maps filters v2 to v1.
func (s *Server) v1List(w http.ResponseWriter, r *http.Request) {
	all, err := s.Filters.List(r.Context(), apiwire.Viewer(r).ID)
	if err != nil {
		s.Fail(w, r, err)
		return
	}
	out := []entity.V1Filter{}
	for _, f := range all {
		for _, k := range f.Keywords {
			out = append(out, entity.V1FilterOf(f, k))
		}
	}
	apiwire.WriteJSON(w, http.StatusOK, out)
}

// v1Show answers GET /api/v1/filters/{id}: the keyword id as a v1
// filter.
func (s *Server) v1Show(w http.ResponseWriter, r *http.Request) {
	id, ok := pathID(w, r, r.PathValue("id"))
	if !ok {
		return
	}
	f, k, err := s.Filters.KeywordOf(r.Context(), apiwire.Viewer(r).ID, id)
	if err != nil {
		s.Fail(w, r, err)
		return
	}
	apiwire.WriteJSON(w, http.StatusOK, entity.V1FilterOf(f, k))
}
