package web

import (
	"crypto/rand"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/middleware"
	"github.com/retwis/retwis/internal/store/interact"
	"github.com/retwis/retwis/internal/web/page"
)

// editPost serves the pages of a post's edits: GET /p/{id}/history, its
// versions, newest first, for whoever sees it; GET /p/{id}/edit, its
// author's form, prefilled (with the alt text and focal point of each of
// its pictures); POST /p/{id}/edit, the edit (saveEdit).
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
		v.Draft, v.DraftWarning, v.Pictures = v.Post.Body, v.Post.Warning, pictureFields(v.Post.Media, nil)
	default:
		var done bool
		if status, done, err = s.saveEdit(w, r, u.ID, pid, &v); done {
			return
		}
	}
	if err != nil {
		s.MW.Fail(w, r, err)
		return
	}
	s.Render(w, r, status, "edit", v)
}

// saveEdit makes the edit of post pid that r's form asks of its author
// uid (status, spoiler, idempotency_key; for each of its pictures, in
// order, media_id, alt and focus), through the store's edit as the
// client API does: back to the post (done), or v, the form again with
// the reason and what was typed, and its status. A post not there or
// not uid's is an error to fail with.
func (s *Server) saveEdit(w http.ResponseWriter, r *http.Request, uid, pid int64, v *page.View) (status int, done bool, err error) {
	status, err = page.ParseForm(w, r)
	e := interact.Edit{Author: uid, Post: pid, Text: r.PostFormValue("status"),
		Warning: r.PostFormValue("spoiler"), Key: r.PostFormValue("idempotency_key")}
	if err == nil {
		e.MediaIDs, e.Describe, err = pictureEdits(r.PostForm)
	}
	var p retwis.Post
	if err == nil {
		p, err = s.Store.EditPost(r.Context(), e)
	}
	if err == nil {
		if len(e.Describe) > 0 && s.media != nil {
			s.media.Redescribed(r.Context(), p)
		}
		http.Redirect(w, r, retwis.PostPath(pid), http.StatusSeeOther)
		return status, true, nil
	}
	if k := retwis.ErrorKind(err); k == retwis.Forbidden || k == retwis.NotFound {
		return status, false, err
	}
	var ok bool
	if status, ok = s.FormRefused(w, r, status, err); !ok {
		return status, true, nil
	}
	v.Post.ID, v.Error, v.Draft, v.DraftWarning = pid, retwis.ErrorMessage(err), s.draft(r, "status"), s.draft(r, "spoiler")
	if p, err := s.Store.OwnPost(r.Context(), uid, pid); err == nil { // the pictures to show again
		v.Pictures = pictureFields(p.Media, r.PostForm)
	}
	return status, false, nil
}

// pictureFields returns the fields of the edit form of the pictures as:
// their alt text and focal point, or as form (not nil) typed them.
func pictureFields(as []retwis.Attachment, form url.Values) []page.PictureField {
	out, f := make([]page.PictureField, len(as)), strconv.FormatFloat // exact: the focus sent back unchanged is the same
	for i, a := range as {
		out[i] = page.PictureField{Attachment: a, N: i + 1, Alt: a.Description, Focus: f(a.FocusX, 'g', -1, 64) + "," + f(a.FocusY, 'g', -1, 64)}
		if alts := form["alt"]; i < len(alts) {
			out[i].Alt = alts[i]
		}
		if foci := form["focus"]; i < len(foci) {
			out[i].Focus = foci[i]
		}
	}
	return out
}

// pictureEdits reads the pictures of an edit's form: media_id, the ids
// of the post's pictures in order (interact.Edit.MediaIDs: nil if it
// has none), those checked as remove left out, each with the alt and
// focus of the same rank ("x,y", "" the centre), checked as the client
// API checks them, which the edit sets (Describe). A field refused is
// named by its picture's rank.
func pictureEdits(form url.Values) ([]int64, map[int64]interact.MediaText, error) {
	raw, alts, foci := form["media_id"], form["alt"], form["focus"]
	if len(raw) == 0 {
		return nil, nil, nil
	}
	ids, texts := make([]int64, 0, len(raw)), make(map[int64]interact.MediaText, len(raw))
	for i, r := range raw {
		name := fmt.Sprintf("Picture %d", i+1)
		id, ok := retwis.ParseID(r)
		if !ok {
			return nil, nil, retwis.Errorf(retwis.Invalid, "%s is not one of this post's.", name)
		}
		if slices.Contains(form["remove"], r) {
			continue
		}
		ids = append(ids, id)
		var t interact.MediaText
		if i < len(alts) {
			d, err := retwis.NormalizeDescription(alts[i])
			if err != nil {
				return nil, nil, pictureErr(name, err)
			}
			t.Description = &d
		}
		if i < len(foci) {
			x, y, err := retwis.ParseFocus(strings.TrimSpace(foci[i]))
			if err != nil {
				return nil, nil, pictureErr(name, err)
			}
			t.Focus = &[2]float64{x, y}
		}
		texts[id] = t
	}
	return ids, texts, nil
}
