package web

import (
	"net/http"
	"strconv"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/middleware"
)

// postID reads the {id} of a post path.
func postID(r *http.Request) (int64, error) {
	n, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil || n <= 0 {
		return 0, retwis.Errorf(retwis.NotFound, "There is no such post.")
	}
	return n, nil
}

// permalink serves GET /p/{id}: one post, with a delete button for its
// author.
func (s *Server) permalink(w http.ResponseWriter, r *http.Request) {
	pid, err := postID(r)
	var p retwis.Post
	if err == nil {
		p, err = s.store.Post(r.Context(), pid)
	}
	if err != nil {
		s.mw.Fail(w, r, err)
		return
	}
	v := view{Title: "Post by " + p.Author, Post: p}
	if u, ok := middleware.ViewerFrom(r.Context()); ok {
		v.Viewer = &u
	}
	s.render(w, http.StatusOK, "post", v)
}
