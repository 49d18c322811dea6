package api

import (
	"context"
	"net/http"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/api/apiwire"
	"github.com/retwis/retwis/internal/api/entity"
)

// markAction puts or takes off one of a user's marks on a post (a
// favourite, a bookmark, a pin) and returns the post as the user sees
// it then.
type markAction func(ctx context.Context, uid, pid int64) (retwis.Post, error)

// markStatus answers POST /api/v1/statuses/{id}/favourite, unfavourite,
// bookmark, unbookmark, pin and unpin with the status as the user sees
// it once act is done.
func (s *Server) markStatus(act markAction) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		pid, ok := retwis.ParseID(r.PathValue("id"))
		if !ok {
			apiwire.NotFound(w, r)
			return
		}
		p, err := act(r.Context(), apiwire.Viewer(r).ID, pid)
		var out []entity.Status
		if err == nil {
			out, err = s.Statuses(r.Context(), entity.SiteOf(r), []retwis.Post{p})
		}
		switch {
		case err != nil:
			s.Fail(w, r, err)
		case len(out) == 0:
			apiwire.NotFound(w, r)
		default:
			apiwire.WriteJSON(w, http.StatusOK, out[0])
		}
	}
}

// markedStatuses answers GET /api/v1/favourites and /bookmarks: the
// statuses the user marked, the newest mark first, paged (limit 20, at
// most 40) with Link headers whose max_id and min_id name statuses of
// the list; since_id has no meaning on a list in the order of marks,
// and is not used.
func (s *Server) markedStatuses(read func(ctx context.Context, uid int64, c retwis.Cursor, n int) (retwis.Page, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		p, ok := s.PageOf(w, r)
		if !ok {
			return
		}
		page, err := read(r.Context(), apiwire.Viewer(r).ID, p.Cursor, p.Limit)
		if err != nil {
			s.Fail(w, r, err)
			return
		}
		s.WriteStatuses(w, r, page, 0)
	}
}

// whoMarked returns the handler of GET /api/v1/statuses/{id}/favourited_by
// and /reblogged_by: the accounts that favourited or boosted the status,
// as read reads them, the most recent first, paged by account id (limit
// 40, at most 80) with Link headers.
func (s *Server) whoMarked(read func(ctx context.Context, viewer, pid int64, c retwis.Cursor, n int) (retwis.FollowPage, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		pid, ok := retwis.ParseID(r.PathValue("id"))
		if !ok {
			apiwire.NotFound(w, r)
			return
		}
		p, ok := s.AccountPaging(w, r)
		if !ok {
			return
		}
		page, err := read(r.Context(), apiwire.Viewer(r).ID, pid, p.Cursor, p.Limit)
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

// pinnedStatuses answers GET /api/v1/accounts/{id}/statuses?pinned=true:
// the account's pinned statuses, the newest pin first, on one page.
func (s *Server) pinnedStatuses(w http.ResponseWriter, r *http.Request, uid int64, p apiwire.Page) {
	var pinned []retwis.Post
	if p.Cursor == (retwis.Cursor{}) {
		var err error
		if pinned, err = s.Store.Pinned(r.Context(), apiwire.Viewer(r).ID, uid); err != nil {
			s.Fail(w, r, err)
			return
		}
	}
	s.WriteStatuses(w, r, retwis.Page{Posts: pinned}, p.Since)
}
