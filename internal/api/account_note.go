package api

import (
	"net/http"

	"github.com/retwis/retwis/internal/api/apiwire"
	"github.com/retwis/retwis/internal/store/notes"
)

// noteAccount answers POST /api/v1/accounts/{id}/note: the viewer's
// private note about the account (comment; empty or absent: none), which
// only they see, as the relationship's note; it answers the relationship.
func (s *Server) noteAccount(w http.ResponseWriter, r *http.Request) {
	sum, ok := s.accountOf(w, r)
	if !ok {
		return
	}
	v, err := apiwire.Params(r)
	if err != nil {
		apiwire.BadRequest(w, r, err)
		return
	}
	me := apiwire.Viewer(r).ID
	if err := notes.Set(r.Context(), s.Store, me, sum.User.ID, v.Get("comment")); err != nil {
		s.Fail(w, r, err)
		return
	}
	rels, err := s.relations(r.Context(), me, []int64{sum.User.ID})
	if err != nil {
		s.Fail(w, r, err)
		return
	}
	apiwire.WriteJSON(w, http.StatusOK, rels[0])
}
