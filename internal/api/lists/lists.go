package lists

import (
	"net/http"
	"net/url"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/api/apiwire"
)

// index answers GET /api/v1/lists: the viewer's lists.
func (s *Server) index(w http.ResponseWriter, r *http.Request) {
	ls, err := s.lists().Lists(r.Context(), apiwire.Viewer(r).ID)
	if err != nil {
		s.Fail(w, r, err)
		return
	}
	apiwire.WriteJSON(w, http.StatusOK, entities(ls))
}

// show answers GET /api/v1/lists/{id}: one of the viewer's lists.
func (s *Server) show(w http.ResponseWriter, r *http.Request) {
	lid, ok := listID(w, r)
	if !ok {
		return
	}
	l, err := s.lists().List(r.Context(), apiwire.Viewer(r).ID, lid)
	if err != nil {
		s.Fail(w, r, err)
		return
	}
	apiwire.WriteJSON(w, http.StatusOK, entityOf(l))
}

// listParams reads the parameters of a list's creation or update: title
// and replies_policy; exclusive=true is refused (422): retwis's home
// timeline does not leave out the posts of a list's members.
func listParams(w http.ResponseWriter, r *http.Request) (url.Values, bool) {
	v, err := apiwire.Params(r)
	if err != nil {
		apiwire.BadRequest(w, r, err)
		return nil, false
	}
	if apiwire.Flag(v, "exclusive") {
		apiwire.RenderError(w, r, http.StatusUnprocessableEntity, "Exclusive lists are not supported: a list's members' posts stay on the home timeline.")
		return nil, false
	}
	return v, true
}

// create answers POST /api/v1/lists: a new list of the viewer's, with
// title and replies_policy (list when absent).
func (s *Server) create(w http.ResponseWriter, r *http.Request) {
	v, ok := listParams(w, r)
	if !ok {
		return
	}
	l, err := s.lists().Create(r.Context(), apiwire.Viewer(r).ID, v.Get("title"), v.Get("replies_policy"))
	if err != nil {
		s.Fail(w, r, err)
		return
	}
	apiwire.WriteJSON(w, http.StatusOK, entityOf(l))
}

// update answers PUT /api/v1/lists/{id}: the list's title and
// replies_policy changed, those given.
func (s *Server) update(w http.ResponseWriter, r *http.Request) {
	lid, ok := listID(w, r)
	if !ok {
		return
	}
	v, ok := listParams(w, r)
	if !ok {
		return
	}
	if _, given := v["title"]; given && v.Get("title") == "" {
		s.Fail(w, r, retwis.Errorf(retwis.Invalid, "Validation failed: Title can't be blank"))
		return
	}
	l, err := s.lists().Update(r.Context(), apiwire.Viewer(r).ID, lid, v.Get("title"), v.Get("replies_policy"))
	if err != nil {
		s.Fail(w, r, err)
		return
	}
	apiwire.WriteJSON(w, http.StatusOK, entityOf(l))
}

// delete answers DELETE /api/v1/lists/{id}: the list deleted, {}.
func (s *Server) delete(w http.ResponseWriter, r *http.Request) {
	lid, ok := listID(w, r)
	if !ok {
		return
	}
	if err := s.lists().Delete(r.Context(), apiwire.Viewer(r).ID, lid); err != nil {
		s.Fail(w, r, err)
		return
	}
	apiwire.EmptyObject(w, r)
}
