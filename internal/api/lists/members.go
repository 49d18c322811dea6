package lists

import (
	"context"
	"net/http"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/api/apiwire"
)

// members answers GET /api/v1/lists/{id}/accounts: the list's accounts,
// newest account first, paged by account id (limit 40, at most 80; 0:
// all of them).
func (s *Server) members(w http.ResponseWriter, r *http.Request) {
	lid, ok := listID(w, r)
	if !ok {
		return
	}
	v, err := apiwire.Params(r)
	if err != nil {
		apiwire.BadRequest(w, r, err)
		return
	}
	all := v.Get("limit") == "0"
	if all {
		v.Del("limit")
	}
	p, err := apiwire.ReadPage(v, apiwire.MaxLimit, apiwire.MaxAccounts)
	var ids []int64
	if err == nil {
		ids, err = s.lists().Members(r.Context(), apiwire.Viewer(r).ID, lid)
	}
	if err != nil {
		s.Fail(w, r, err)
		return
	}
	if all {
		p.Limit = len(ids)
	}
	page, older := pageOf(ids, p)
	s.WriteAccounts(w, r, page, older)
}

// pageOf returns the page p asks for of ids (descending), and whether
// older ones follow.
func pageOf(ids []int64, p apiwire.Page) ([]int64, bool) {
	lo, hi := 0, len(ids) // ids[lo:hi] are within the bounds
	for lo < hi && p.Cursor.Before > 0 && ids[lo] >= p.Cursor.Before {
		lo++
	}
	for hi > lo && ids[hi-1] <= max(p.Since, p.Cursor.After) {
		hi--
	}
	if p.Cursor.After > 0 && hi-lo > p.Limit { // just newer than min_id
		lo = hi - p.Limit
	}
	end := min(lo+p.Limit, hi)
	return ids[lo:end], end < len(ids)
}

// addMembers answers POST /api/v1/lists/{id}/accounts: account_ids[]
// added, each an account the viewer follows, {}.
func (s *Server) addMembers(w http.ResponseWriter, r *http.Request) {
	s.changeMembers(w, r, s.lists().Add)
}

// removeMembers answers DELETE /api/v1/lists/{id}/accounts:
// account_ids[] taken out, {}.
func (s *Server) removeMembers(w http.ResponseWriter, r *http.Request) {
	s.changeMembers(w, r, s.lists().Remove)
}

// changeMembers answers a change of the members of a list, account_ids[]
// given to change.
func (s *Server) changeMembers(w http.ResponseWriter, r *http.Request, change func(ctx context.Context, owner, lid int64, accounts []int64) error) {
	lid, ok := listID(w, r)
	if !ok {
		return
	}
	v, err := apiwire.Params(r)
	if err != nil {
		apiwire.BadRequest(w, r, err)
		return
	}
	ids, err := apiwire.IDs(v, "account_ids")
	if err == nil && len(ids) == 0 {
		err = retwis.Errorf(retwis.Invalid, "account_ids[] is required.")
	}
	if err == nil {
		err = change(r.Context(), apiwire.Viewer(r).ID, lid, ids)
	}
	if err != nil {
		s.Fail(w, r, err)
		return
	}
	apiwire.EmptyObject(w, r)
}

// accountLists answers GET /api/v1/accounts/{id}/lists: the viewer's
// lists that hold the account.
func (s *Server) accountLists(w http.ResponseWriter, r *http.Request) {
	uid, ok := retwis.ParseID(r.PathValue("id"))
	if !ok {
		apiwire.NotFound(w, r)
		return
	}
	ls, err := s.lists().ListsOf(r.Context(), apiwire.Viewer(r).ID, uid)
	if err != nil {
		s.Fail(w, r, err)
		return
	}
	apiwire.WriteJSON(w, http.StatusOK, entities(ls))
}
