package media

import (
	"cmp"
	"context"
	"net/http"
	"time"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/api/apiwire"
	"github.com/retwis/retwis/internal/api/entity"
	mediastore "github.com/retwis/retwis/internal/store/media"
)

// readyWait is how long POST /api/v2/media waits for the picture to be
// processed before it answers 202 with url null: a picture of a few
// megapixels is ready within it on one core, so that apps seldom need
// to poll GET /api/v1/media/:id.
const readyWait = 500 * time.Millisecond

// upload returns the handler of POST /api/v1/media (wait 0: it answers
// once the picture is processed, or at the request's deadline) and of
// POST /api/v2/media (it answers 202 if the picture is not processed
// within wait): a multipart body with the picture as file (JPEG, PNG,
// GIF or WebP), its alt text as description and its focal point as
// focus ("x,y"); Mastodon's thumbnail is ignored. A file missing, not a
// picture retwis takes, or too large is refused with 422.
func (s *Server) upload(wait time.Duration) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		max := s.Media.Limits().MaxBytes
		v, ok := apiwire.UploadParams(w, r, max)
		if !ok {
			return
		}
		data, err := apiwire.File(r, "file", max)
		if err == nil && data == nil {
			err = retwis.Errorf(retwis.Invalid, "Send the picture as the file of a multipart/form-data body.")
		}
		fx, fy, ferr := retwis.ParseFocus(v.Get("focus"))
		if err = cmp.Or(err, ferr); err != nil {
			s.Fail(w, r, err)
			return
		}
		u, err := s.Media.Upload(r.Context(), apiwire.Viewer(r).ID, mediastore.ForPost, data, v.Get("description"), fx, fy)
		if err != nil {
			s.Fail(w, r, err)
			return
		}
		ctx := r.Context()
		if wait > 0 {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, wait)
			defer cancel()
		}
		rec, err := s.Media.Wait(ctx, u)
		if err != nil {
			s.Fail(w, r, err)
			return
		}
		answer(w, r, rec, http.StatusAccepted)
	}
}

// answer answers the upload of rec: 200 with its MediaAttachment once
// processed, status with it while it is (202 for an upload, 206 for a
// read or a change, as Mastodon's), 422 with why if it failed.
func answer(w http.ResponseWriter, r *http.Request, rec mediastore.Record, status int) {
	switch rec.State {
	case mediastore.Failed:
		apiwire.RenderError(w, r, http.StatusUnprocessableEntity, rec.Error)
	case mediastore.Ready:
		apiwire.WriteJSON(w, http.StatusOK, entity.SiteOf(r).Media(rec.Attachment))
	default:
		apiwire.WriteJSON(w, status, entity.SiteOf(r).Media(rec.Attachment))
	}
}

// record reads the viewer's upload of the path's id, ok false once a
// failure was answered: 404 for none, or for one of another user, or
// one that is not an upload for a post (an avatar…).
func (s *Server) record(w http.ResponseWriter, r *http.Request) (_ mediastore.Record, ok bool) {
	mid, ok := retwis.ParseID(r.PathValue("id"))
	if !ok {
		apiwire.NotFound(w, r)
		return mediastore.Record{}, false
	}
	rec, err := s.Media.Records().Get(r.Context(), apiwire.Viewer(r).ID, mid)
	if err == nil && rec.Purpose != mediastore.ForPost {
		err = retwis.Errorf(retwis.NotFound, "There is no picture %d of yours.", mid)
	}
	if err != nil {
		s.Fail(w, r, err)
		return mediastore.Record{}, false
	}
	return rec, true
}

// show answers GET /api/v1/media/:id: the viewer's upload, 206 while it
// is processed (apps poll until 200), 422 if it failed.
func (s *Server) show(w http.ResponseWriter, r *http.Request) {
	if rec, ok := s.record(w, r); ok {
		answer(w, r, rec, http.StatusPartialContent)
	}
}

// describe answers PUT /api/v1/media/:id: sets the alt text
// (description) and the focal point (focus, "x,y") of an upload not
// attached to a post yet, each when given (an attached one is not
// found, as Mastodon's: change it by editing the post), and answers it
// as GET does.
func (s *Server) describe(w http.ResponseWriter, r *http.Request) {
	v, err := apiwire.Params(r)
	if err != nil {
		apiwire.BadRequest(w, r, err)
		return
	}
	rec, ok := s.record(w, r)
	if !ok {
		return
	}
	a := rec.Attachment
	if rec.Status != 0 {
		s.Fail(w, r, retwis.Errorf(retwis.NotFound, "The picture %d is attached to a post: edit the post to change it.", a.ID))
		return
	}
	if _, given := v["description"]; given {
		a.Description, err = retwis.NormalizeDescription(v.Get("description"))
	}
	if _, given := v["focus"]; given && err == nil {
		a.FocusX, a.FocusY, err = retwis.ParseFocus(v.Get("focus"))
	}
	if err == nil {
		rec, err = s.Media.Records().Describe(r.Context(), a.Owner, a.ID, a.Description, a.FocusX, a.FocusY)
	}
	if err != nil {
		s.Fail(w, r, err)
		return
	}
	answer(w, r, rec, http.StatusPartialContent)
}
