package web

import (
	"crypto/rand"
	"net/http"
	"strings"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/middleware"
	"github.com/retwis/retwis/internal/store/interact"
	"github.com/retwis/retwis/internal/web/page"
)

// editPost serves the pages of a post's edits: GET /p/{id}/history, its
// versions, newest first, for whoever sees it; GET /p/{id}/edit, its
// author's form, prefilled; POST /p/{id}/edit (status, spoiler,
// idempotency_key), the edit: back to the post, or the form again with
// the reason and the text kept.
func (s *Server) editPost(w http.ResponseWriter, r *http.Request) {
	u, in := middleware.ViewerFrom(r.Context())
	v, status := page.View{Title: "Edit your post", PostKey: rand.Text()}, http.StatusOK
	if in {
		v.Viewer = &u
	}
	pid, err := postID(r)
	switch {
	case err != nil:
	case strings.HasSuffix(r.URL.Path, "/history"):
		v.Title = "Versions of a post"
		v.Post, v.Versions, err = s.Store.History(r.Context(), u.ID, pid)
	case r.Method == http.MethodGet:
		v.Post, err = s.Store.OwnPost(r.Context(), u.ID, pid)
		v.Draft, v.DraftWarning = v.Post.Body, v.Post.Warning
	default:
		if status, err = page.ParseForm(w, r); err == nil {
			_, err = s.Store.EditPost(r.Context(), interact.Edit{Author: u.ID, Post: pid, Text: r.PostFormValue("status"),
				Warning: r.PostFormValue("spoiler"), Key: r.PostFormValue("idempotency_key")})
		}
		if err == nil {
			http.Redirect(w, r, retwis.PostPath(pid), http.StatusSeeOther)
			return
		}
		if k := retwis.ErrorKind(err); k != retwis.Forbidden && k != retwis.NotFound {
			var ok bool
			if status, ok = s.FormRefused(w, r, status, err); !ok {
				return
			}
			v.Post.ID, v.Error, v.Draft, v.DraftWarning, err = pid, retwis.ErrorMessage(err), s.draft(r, "status"), s.draft(r, "spoiler"), nil
		}
	}
	if err != nil {
		s.MW.Fail(w, r, err)
		return
	}
	s.Render(w, r, status, "edit", v)
}
