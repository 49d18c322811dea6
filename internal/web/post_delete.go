package web

import (
	"net/http"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/middleware"
)

// deletePost serves POST /p/{id}/delete: the author deletes the post.
func (s *Server) deletePost(w http.ResponseWriter, r *http.Request) {
	u, _ := middleware.ViewerFrom(r.Context())
	pid, err := postID(r)
	if err == nil {
		err = s.Store.DeletePost(r.Context(), u.ID, pid)
	}
	if err != nil {
		s.MW.Fail(w, r, err)
		return
	}
	http.Redirect(w, r, retwis.ProfilePath(u.Username), http.StatusSeeOther)
}
