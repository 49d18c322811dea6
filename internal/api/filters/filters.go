package filters

import (
	"net/http"

	"github.com/retwis/retwis/internal/api/apiwire"
	"github.com/retwis/retwis/internal/api/entity"
	"github.com/retwis/retwis/internal/store/filters"
)

// list answers GET /api/v2/filters: the viewer's filters.
func (s *Server) list(w http.ResponseWriter, r *http.Request) {
	all, err := s.Filters.List(r.Context(), apiwire.Viewer(r).ID)
	if err != nil {
		s.Fail(w, r, err)
		return
	}
	out := make([]entity.Filter, 0, len(all))
	for _, f := range all {
		out = append(out, entity.FilterOf(f))
	}
	apiwire.WriteJSON(w, http.StatusOK, out)
}

// show answers GET /api/v2/filters/{id}.
func (s *Server) show(w http.ResponseWriter, r *http.Request) {
	id, ok := pathID(w, r, r.PathValue("id"))
	if !ok {
		return
	}
	f, err := s.Filters.Get(r.Context(), apiwire.Viewer(r).ID, id)
	s.writeFilter(w, r, f, err)
}

// create answers POST /api/v2/filters: a new filter of title,
// context[], filter_action (warn if absent), expires_in and
// keywords_attributes[].
func (s *Server) create(w http.ResponseWriter, r *http.Request) {
	d, ok := s.draft(w, r)
	if !ok {
		return
	}
	f, err := s.Filters.Create(r.Context(), apiwire.Viewer(r).ID, d)
	s.writeFilter(w, r, f, err)
}

// update answers PUT /api/v2/filters/{id}: the fields given changed, and
// keywords_attributes[] added (no id), changed (id) or removed (id and
// _destroy).
func (s *Server) update(w http.ResponseWriter, r *http.Request) {
	id, ok := pathID(w, r, r.PathValue("id"))
	if !ok {
		return
	}
	d, ok := s.draft(w, r)
	if !ok {
		return
	}
	f, err := s.Filters.Update(r.Context(), apiwire.Viewer(r).ID, id, d)
	s.writeFilter(w, r, f, err)
}

// delete answers DELETE /api/v2/filters/{id}: {} once deleted.
func (s *Server) delete(w http.ResponseWriter, r *http.Request) {
	id, ok := pathID(w, r, r.PathValue("id"))
	if !ok {
		return
	}
	s.writeEmpty(w, r, s.Filters.Delete(r.Context(), apiwire.Viewer(r).ID, id))
}

// draft reads a request's filter parameters; ok is false once a bad
// request was answered.
func (s *Server) draft(w http.ResponseWriter, r *http.Request) (filters.Draft, bool) {
	v, err := apiwire.Params(r)
	if err != nil {
		apiwire.BadRequest(w, r, err)
		return filters.Draft{}, false
	}
	d, err := draftOf(v)
	if err != nil {
		s.Fail(w, r, err)
		return d, false
	}
	return d, true
}

// writeFilter answers f, or the error.
func (s *Server) writeFilter(w http.ResponseWriter, r *http.Request, f filters.Filter, err error) {
	if err != nil {
		s.Fail(w, r, err)
		return
	}
	apiwire.WriteJSON(w, http.StatusOK, entity.FilterOf(f))
}

// writeEmpty answers {} once a deletion succeeded, or the error.
func (s *Server) writeEmpty(w http.ResponseWriter, r *http.Request, err error) {
	if err != nil {
		s.Fail(w, r, err)
		return
	}
	apiwire.WriteJSON(w, http.StatusOK, struct{}{})
}
