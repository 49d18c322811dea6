package api

import (
	"context"
	"net/http"

	"github.com/retwis/retwis"
)

// followLister reads a page of one of a user's follow lists.
type followLister func(s *Server, ctx context.Context, uid int64, c retwis.Cursor, n int) (retwis.FollowPage, error)

func followersList(s *Server, ctx context.Context, uid int64, c retwis.Cursor, n int) (retwis.FollowPage, error) {
	return s.store.Followers(ctx, uid, c, n)
}

func followingList(s *Server, ctx context.Context, uid int64, c retwis.Cursor, n int) (retwis.FollowPage, error) {
	return s.store.Following(ctx, uid, c, n)
}

// followList answers GET /api/v1/accounts/{id}/followers and
// /following: accounts, most recent follow first, paged by user id
// (limit 40, at most 80).
func (s *Server) followList(read followLister) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		sum, ok := s.accountOf(w, r)
		if !ok {
			return
		}
		p, ok := s.accountPaging(w, r)
		if !ok {
			return
		}
		page, err := read(s, r.Context(), sum.User.ID, p.cursor, p.limit)
		if err != nil {
			s.fail(w, r, err)
			return
		}
		uids := make([]int64, len(page.Follows))
		for i, f := range page.Follows {
			uids[i] = f.User.ID
		}
		s.writeAccounts(w, r, uids, page.Older)
	}
}

// accountPaging reads the paging parameters of a list of accounts
// (limit 40, at most 80); ok is false once a bad request was answered.
func (s *Server) accountPaging(w http.ResponseWriter, r *http.Request) (p pageParams, ok bool) {
	v, err := params(r)
	if err != nil {
		badRequest(w, r, err)
		return p, false
	}
	if p, err = readPage(v, maxLimit, maxAccounts); err != nil {
		s.fail(w, r, err)
		return p, false
	}
	return p, true
}

// writeAccounts answers with the accounts of uids, a page of a list
// paged by account id, with its Link header (older: more follow).
func (s *Server) writeAccounts(w http.ResponseWriter, r *http.Request, uids []int64, older bool) {
	sums, err := s.store.Summaries(r.Context(), uids)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	st := newSite(r)
	out := make([]account, len(sums))
	for i, sum := range sums {
		out[i] = st.account(sum)
	}
	if len(uids) > 0 {
		link(w, r, uids[0], uids[len(uids)-1], older)
	}
	writeJSON(w, http.StatusOK, out)
}
