package api

import (
	"net/http"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/api/apiwire"
	"github.com/retwis/retwis/internal/api/entity"
	"github.com/retwis/retwis/internal/store/posts"
)

// createStatus answers POST /api/v1/statuses (status, in_reply_to_id,
// spoiler_text: the content warning, counted with the text;
// media_ids[]: up to 4 of the viewer's uploads, ready, when the text may
// be empty; sensitive: they are hidden until opened, as they are behind
// a content warning): the new post, from what publishing returns (no
// read after). With an Idempotency-Key header, a repeat of the request
// posts nothing more and answers the same post. visibility is
// Mastodon's (public, unlisted, private, direct: retwis.ParseVisibility);
// another is refused with 422, and so are polls. With scheduled_at, the
// status is scheduled instead (scheduled.Server.Create), and the answer
// is a ScheduledStatus (its pictures held until it is published).
func (s *Server) createStatus(w http.ResponseWriter, r *http.Request) {
	v, err := apiwire.Params(r)
	if err != nil {
		apiwire.BadRequest(w, r, err)
		return
	}
	mids, err := apiwire.IDs(v, "media_ids")
	if err != nil {
		s.Fail(w, r, err)
		return
	}
	if len(apiwire.List(v, "poll[options]")) > 0 || len(mids) > 0 && s.Media == nil {
		apiwire.Unsupported(w, r)
		return
	}
	vis, err := retwis.ParseVisibility(v.Get("visibility"))
	if err != nil {
		apiwire.RenderError(w, r, http.StatusUnprocessableEntity, retwis.ErrorMessage(err))
		return
	}
	key := r.Header.Get("Idempotency-Key")
	if len(key) > retwis.MaxIdempotencyKeyLen {
		apiwire.RenderError(w, r, http.StatusUnprocessableEntity, "The Idempotency-Key header is too long.")
		return
	}
	reply, err := apiwire.OptionalID(v, "in_reply_to_id")
	if err != nil {
		s.Fail(w, r, err)
		return
	}
	d := posts.Draft{Author: apiwire.Viewer(r).ID, Text: v.Get("status"),
		Warning: v.Get("spoiler_text"), InReplyTo: reply, Key: key, Visibility: vis, Sensitive: apiwire.Flag(v, "sensitive")}
	if len(mids) > 0 {
		if d.Media, d.Attach, err = s.Media.ForPost(r.Context(), d.Author, mids, key); err != nil {
			if retwis.ErrorKind(err) == retwis.NotFound { // not one of the viewer's uploads: 422, as Mastodon's
				err = retwis.Errorf(retwis.Invalid, "%s", retwis.ErrorMessage(err))
			}
			s.Fail(w, r, err)
			return
		}
	}
	if at := v.Get("scheduled_at"); at != "" {
		s.scheduled.Create(w, r, d, at, func() { s.publish(w, r, d) })
		return
	}
	s.publish(w, r, d)
}

// publish publishes d and answers the new status.
func (s *Server) publish(w http.ResponseWriter, r *http.Request, d posts.Draft) {
	p, err := s.Store.Publish(r.Context(), d)
	if err != nil {
		s.Fail(w, r, err)
		return
	}
	apiwire.WriteJSON(w, http.StatusOK, entity.SiteOf(r).Status(p.Post, p.Author, p.Replies))
}
