package api

import (
	"context"
	"net/http"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/api/apiwire"
	"github.com/retwis/retwis/internal/api/entity"
)

// reblog answers POST /api/v1/statuses/{id}/reblog: the boost, whose
// reblog is the post boosted. Boosting a post boosted already answers
// the same boost, so a request sent again (with an Idempotency-Key or
// without) boosts once.
func (s *Server) reblog(w http.ResponseWriter, r *http.Request) {
	s.boostAction(w, r, s.Store.Boost)
}

// unreblog answers POST /api/v1/statuses/{id}/unreblog: the post, no
// longer boosted by the user (whether it was or not).
func (s *Server) unreblog(w http.ResponseWriter, r *http.Request) {
	s.boostAction(w, r, s.Store.Unboost)
}

// boostAction answers a boost or an unboost of the post the path names,
// done by act, with the status act returns and the boosts of the post.
func (s *Server) boostAction(w http.ResponseWriter, r *http.Request, act func(ctx context.Context, uid, pid int64) (retwis.Post, error)) {
	pid, ok := retwis.ParseID(r.PathValue("id"))
	if !ok {
		apiwire.NotFound(w, r)
		return
	}
	if len(r.Header.Get("Idempotency-Key")) > retwis.MaxIdempotencyKeyLen { // refused as a post's would be
		apiwire.RenderError(w, r, http.StatusUnprocessableEntity, "The Idempotency-Key header is too long.")
		return
	}
	p, err := act(r.Context(), apiwire.Viewer(r).ID, pid)
	var out []entity.Status
	if err == nil {
		out, err = s.Statuses(r.Context(), entity.SiteOf(r), []retwis.Post{p})
	}
	if err == nil && len(out) == 0 {
		err = retwis.Errorf(retwis.NotFound, "There is no post %d; it may have been deleted.", pid)
	}
	if err != nil {
		s.Fail(w, r, err)
		return
	}
	apiwire.WriteJSON(w, http.StatusOK, out[0])
}
