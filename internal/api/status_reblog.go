package api

import (
	"context"
	"net/http"

	"github.com/retwis/retwis"
)

// reblog answers POST /api/v1/statuses/{id}/reblog: the boost, whose
// reblog is the post boosted. Boosting a post boosted already answers
// the same boost, so a request sent again (with an Idempotency-Key or
// without) boosts once.
func (s *Server) reblog(w http.ResponseWriter, r *http.Request) {
	s.boostAction(w, r, s.store.Boost)
}

// unreblog answers POST /api/v1/statuses/{id}/unreblog: the post, no
// longer boosted by the user (whether it was or not).
func (s *Server) unreblog(w http.ResponseWriter, r *http.Request) {
	s.boostAction(w, r, s.store.Unboost)
}

// boostAction answers a boost or an unboost of the post the path names,
// done by act, with the status act returns and the boosts of the post.
func (s *Server) boostAction(w http.ResponseWriter, r *http.Request, act func(ctx context.Context, uid, pid int64) (retwis.Post, error)) {
	pid, ok := retwis.ParseID(r.PathValue("id"))
	if !ok {
		notFound(w, r)
		return
	}
	if len(r.Header.Get("Idempotency-Key")) > retwis.MaxIdempotencyKeyLen { // refused as a post's would be
		renderError(w, r, http.StatusUnprocessableEntity, "The Idempotency-Key header is too long.")
		return
	}
	p, err := act(r.Context(), viewer(r).ID, pid)
	var out []status
	if err == nil {
		out, err = s.statuses(r.Context(), newSite(r), []retwis.Post{p})
	}
	if err == nil && len(out) == 0 {
		err = retwis.Errorf(retwis.NotFound, "There is no post %d; it may have been deleted.", pid)
	}
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, out[0])
}
