package api

import (
	"net/http"
	"strconv"
	"time"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/api/apiwire"
	"github.com/retwis/retwis/internal/api/entity"
	"github.com/retwis/retwis/internal/middleware"
	"github.com/retwis/retwis/internal/store/trending"
)

// trendingStatuses answers GET /api/v1/trends/statuses: the public posts
// rising by the replies, favourites and boosts they get lately, the
// heaviest first (trending.Statuses), as the viewer sees them; paged by
// offset (limit 20, at most 40), with a Link header of the next page's
// offset as Mastodon sends.
func (s *Server) trendingStatuses(w http.ResponseWriter, r *http.Request) {
	v := r.URL.Query()
	limit, err := apiwire.ReadLimit(v, apiwire.DefaultLimit, apiwire.MaxLimit)
	offset, oerr := strconv.Atoi(v.Get("offset"))
	if v.Get("offset") == "" {
		offset, oerr = 0, nil
	}
	if err == nil && (oerr != nil || offset < 0) {
		err = retwis.Errorf(retwis.Invalid, "offset must be a number, 0 or more.")
	}
	if err != nil {
		s.Fail(w, r, err)
		return
	}
	posts, err := trending.Statuses(r.Context(), s.Store, apiwire.Viewer(r).ID, offset, limit, time.Now())
	if err != nil {
		s.Fail(w, r, err)
		return
	}
	out, err := s.Statuses(r.Context(), entity.SiteOf(r), posts)
	if err != nil {
		s.Fail(w, r, err)
		return
	}
	if len(posts) == limit && offset+limit <= trending.MaxOffset {
		q := r.URL.Query()
		q.Set("offset", strconv.Itoa(offset+limit))
		q.Del("access_token")
		w.Header().Set("Link", `<`+middleware.Origin(r)+r.URL.Path+"?"+q.Encode()+`>; rel="next"`)
	}
	apiwire.WriteJSON(w, http.StatusOK, out)
}
