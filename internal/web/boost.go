package web

import (
	"cmp"
	"net/http"
	"strings"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/middleware"
)

// boost serves POST /p/{id}/boost and /unboost: the viewer boosts the
// post or takes their boost back, then goes back to the page of the
// site the form names (next), or to the post's.
func (s *Server) boost(w http.ResponseWriter, r *http.Request) {
	u, _ := middleware.ViewerFrom(r.Context())
	pid, err := postID(r)
	if err == nil {
		if strings.HasSuffix(r.URL.Path, "/unboost") {
			_, err = s.store.Unboost(r.Context(), u.ID, pid)
		} else {
			_, err = s.store.Boost(r.Context(), u.ID, pid)
		}
	}
	if err != nil {
		s.mw.Fail(w, r, err)
		return
	}
	http.Redirect(w, r, cmp.Or(localPath(r.PostFormValue("next")), retwis.PostPath(pid)), http.StatusSeeOther)
}
