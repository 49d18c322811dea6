package api

import (
	"context"
	"net/http"
	"slices"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/api/apiwire"
)

// block answers POST /api/v1/accounts/{id}/block with the relationship
// that results.
func (s *Server) block(w http.ResponseWriter, r *http.Request) {
	s.changeRelation(w, r, s.Store.Block)
}

// unblock answers POST /api/v1/accounts/{id}/unblock.
func (s *Server) unblock(w http.ResponseWriter, r *http.Request) {
	s.changeRelation(w, r, s.Store.Unblock)
}

// mute answers POST /api/v1/accounts/{id}/mute. Its notifications and
// duration parameters are read and not used: a mute hides posts from
// timelines only, until undone.
func (s *Server) mute(w http.ResponseWriter, r *http.Request) {
	s.changeRelation(w, r, s.Store.Mute)
}

// unmute answers POST /api/v1/accounts/{id}/unmute.
func (s *Server) unmute(w http.ResponseWriter, r *http.Request) {
	s.changeRelation(w, r, s.Store.Unmute)
}

// blocks answers GET /api/v1/blocks: the accounts the user blocked.
func (s *Server) blocks(w http.ResponseWriter, r *http.Request) {
	s.muffleList(w, r, s.Store.Blocks)
}

// mutes answers GET /api/v1/mutes: the accounts the user muted.
func (s *Server) mutes(w http.ResponseWriter, r *http.Request) {
	s.muffleList(w, r, s.Store.Mutes)
}

// muffleList answers with a page of the accounts read lists, the newest
// block or mute first, paged by account id (limit 40, at most 80) with
// Link headers, as the follow lists are.
func (s *Server) muffleList(w http.ResponseWriter, r *http.Request, read func(ctx context.Context, uid int64) ([]retwis.ListedUser, error)) {
	p, ok := s.AccountPaging(w, r)
	if !ok {
		return
	}
	all, err := read(r.Context(), apiwire.Viewer(r).ID)
	if err != nil {
		s.Fail(w, r, err)
		return
	}
	page, older := pageOfMuffles(all, p)
	s.WriteAccounts(w, r, page, older)
}

// pageOfMuffles returns the ids of the page of all that p asks for: after
// the account max_id names (Before), or before min_id's (After), and
// whether older ones follow. A cursor not in the list gives the first
// page.
func pageOfMuffles(all []retwis.ListedUser, p apiwire.Page) (uids []int64, older bool) {
	at := func(uid int64) int {
		return slices.IndexFunc(all, func(m retwis.ListedUser) bool { return m.User.ID == uid })
	}
	from, to := 0, len(all)
	switch {
	case p.Cursor.Before > 0:
		if i := at(p.Cursor.Before); i >= 0 {
			from = i + 1
		}
	case p.Cursor.After > 0:
		if i := at(p.Cursor.After); i >= 0 {
			from, to = max(0, i-p.Limit), i
		}
	}
	to = min(to, from+p.Limit)
	for _, m := range all[from:to] {
		uids = append(uids, m.User.ID)
	}
	return uids, to < len(all)
}
