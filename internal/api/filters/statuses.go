package filters

import (
	"net/http"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/api/apiwire"
	"github.com/retwis/retwis/internal/api/entity"
)

// addStatus answers POST /api/v2/filters/{filter_id}/statuses: the post
// status_id added to the filter.
func (s *Server) addStatus(w http.ResponseWriter, r *http.Request) {
	id, v, ok := pathParams(w, r, "filter_id")
	if !ok {
		return
	}
	pid, ok := retwis.ParseID(v.Get("status_id"))
	if !ok {
		apiwire.RenderError(w, r, http.StatusUnprocessableEntity, "status_id must be the id of a status.")
		return
	}
	ref, err := s.Filters.AddStatus(r.Context(), apiwire.Viewer(r).ID, id, pid)
	if err != nil {
		s.Fail(w, r, err)
		return
	}
	apiwire.WriteJSON(w, http.StatusOK, entity.StatusRefOf(ref))
}

// deleteStatus answers DELETE /api/v2/filters/statuses/{id}: {}.
func (s *Server) deleteStatus(w http.ResponseWriter, r *http.Request) {
	id, ok := pathID(w, r, r.PathValue("id"))
	if !ok {
		return
	}
	s.writeEmpty(w, r, s.Filters.DeleteStatus(r.Context(), apiwire.Viewer(r).ID, id))
}
