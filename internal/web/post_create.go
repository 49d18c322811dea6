package web

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/middleware"
	"github.com/retwis/retwis/internal/store/posts"
	"github.com/retwis/retwis/internal/web/page"
)

// draftBytes is how many bytes a refused post keeps as its draft, for
// each character a post may have (--max-post-chars): a post too long by
// far, in characters of four bytes, is still kept; a larger body is not
// shown again.
const draftBytes = 8

// draft returns form field name of r to show again in a refused post's
// form, unless it is too long to be worth it.
func (s *Server) draft(r *http.Request, name string) string {
	if d := r.PostFormValue(name); len(d) <= draftBytes*s.Store.Opts.MaxPostChars {
		return d
	}
	return ""
}

// createPost serves POST /post: publish a status update, as public as
// visibility says (retwis.ParseVisibility), and go home, or, with
// in_reply_to (a post id), a reply, and go to its thread (the
// reply's page, which shows the posts it answers above it). A refused
// post shows the page again with the reason and the text kept (spoiler,
// the content warning, too). The
// form's idempotency key makes a resent form (a reload after a lost
// answer) publish once. With schedule_at, a time ahead, the post is
// scheduled instead (schedulePost) with its pictures, and the scheduled
// posts' page shown.
// A multipart form may carry pictures (postMedia), shown behind the
// warning if sensitive; a refused form cannot keep them, and says so.
func (s *Server) createPost(w http.ResponseWriter, r *http.Request) {
	u, _ := middleware.ViewerFrom(r.Context())
	files, status, err := page.ParseFiles(r, "media")
	var replyTo int64
	vis, visErr := retwis.ParseVisibility(r.PostFormValue("visibility"))
	if err == nil {
		replyTo, err = page.PostNumber(r.PostFormValue("in_reply_to"), "in_reply_to")
	}
	if err == nil {
		err = visErr
	}
	var p posts.Published
	d := posts.Draft{Author: u.ID, Text: r.PostFormValue("status"), Warning: r.PostFormValue("spoiler"), InReplyTo: replyTo,
		Key: r.PostFormValue("idempotency_key"), Visibility: vis, Sensitive: r.PostFormValue("sensitive") != ""}
	if err == nil {
		d.Media, d.Attach, err = s.postMedia(r.Context(), u.ID, files, r.PostForm["alt"])
	}
	if err == nil && r.PostFormValue("schedule_at") != "" {
		var later bool
		if later, err = s.schedulePost(r, d); later {
			http.Redirect(w, r, "/scheduled", http.StatusSeeOther)
			return
		}
	}
	if err == nil {
		p, err = s.Store.Publish(r.Context(), d)
	}
	if err != nil {
		status, ok := s.FormRefused(w, r, status, err)
		if !ok {
			return
		}
		v := page.View{Error: retwis.ErrorMessage(err), Draft: s.draft(r, "status"), DraftWarning: s.draft(r, "spoiler"), DraftVisibility: vis}
		if pictures(files, "media") > 0 {
			v.Error += " Please choose the pictures again."
		}
		if replyTo > 0 && !errors.Is(err, posts.ErrParentGone) && !errors.Is(err, posts.ErrParentHidden) { // back to the thread
			r.SetPathValue("id", strconv.FormatInt(replyTo, 10))
			s.renderThread(w, r, status, v)
			return
		}
		s.renderHome(w, r, u, retwis.Cursor{}, status, v)
		return
	}
	if replyTo > 0 { // its own thread, which shows it below what it answers at once
		http.Redirect(w, r, retwis.PostPath(p.Post.ID), http.StatusSeeOther)
		return
	}
	http.Redirect(w, r, "/", http.StatusSeeOther)
}
