package api

import (
	"context"
	"net/http"

	"github.com/retwis/retwis"
)

// followLister reads a page of one of a user's follow lists.
type followLister func(s *Server, ctx context.Context, uid int64, c retwis.Cursor, n int) (retwis.FollowPage, error)

func followersList(s *Server, ctx context.Context, uid int64, c retwis.Cursor, n int) (retwis.FollowPage, error) {
	return s.Store.Followers(ctx, uid, c, n)
}

func followingList(s *Server, ctx context.Context, uid int64, c retwis.Cursor, n int) (retwis.FollowPage, error) {
	return s.Store.Following(ctx, uid, c, n)
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
		p, ok := s.AccountPaging(w, r)
		if !ok {
			return
		}
		page, err := read(s, r.Context(), sum.User.ID, p.Cursor, p.Limit)
		if err != nil {
			s.Fail(w, r, err)
			return
		}
		uids := make([]int64, len(page.Follows))
		for i, f := range page.Follows {
			uids[i] = f.User.ID
		}
		s.WriteAccounts(w, r, uids, page.Older)
	}
}
