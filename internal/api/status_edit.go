package api

import (
	"net/http"
	"net/url"
	"slices"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/api/apiwire"
	"github.com/retwis/retwis/internal/api/entity"
	"github.com/retwis/retwis/internal/store/interact"
)

// editStatus answers PUT /api/v1/statuses/{id} (status, spoiler_text;
// media_ids[], the post's pictures as they will be: those it keeps, in
// their order, and new uploads of the viewer (added); and
// media_attributes[][id,description,focus], which change their alt
// text and focal point): the post edited, with its edited_at, if it is
// the viewer's. With an Idempotency-Key header, a repeat of the request
// edits nothing more and answers the post as it is. Polls are refused
// with 422.
func (s *Server) editStatus(w http.ResponseWriter, r *http.Request) {
	pid, ok := retwis.ParseID(r.PathValue("id"))
	if !ok {
		apiwire.NotFound(w, r)
		return
	}
	v, err := apiwire.Params(r)
	if err != nil {
		apiwire.BadRequest(w, r, err)
		return
	}
	if len(apiwire.List(v, "poll[options]")) > 0 {
		apiwire.Unsupported(w, r)
		return
	}
	e := interact.Edit{Author: apiwire.Viewer(r).ID, Post: pid, Text: v.Get("status"),
		Warning: v.Get("spoiler_text"), Key: r.Header.Get("Idempotency-Key")}
	if len(apiwire.List(v, "media_ids")) > 0 {
		e.MediaIDs, err = apiwire.IDs(v, "media_ids")
	}
	if err == nil && e.MediaIDs != nil {
		err = s.added(r, &e)
	}
	if err == nil {
		e.Describe, err = mediaAttributes(v)
	}
	var p retwis.Post
	if err == nil {
		p, err = s.Store.EditPost(r.Context(), e)
	}
	if err == nil && len(e.Describe) > 0 && s.Media != nil {
		s.Media.Redescribed(r.Context(), p)
	}
	var out []entity.Status
	if err == nil {
		out, err = s.Statuses(r.Context(), entity.SiteOf(r), []retwis.Post{p})
	}
	if err == nil && len(out) == 0 {
		err = retwis.Errorf(retwis.NotFound, "There is no such post.")
	}
	if err != nil {
		s.Fail(w, r, err)
		return
	}
	apiwire.WriteJSON(w, http.StatusOK, out[0])
}

// added sets what edit e adds of the pictures it asks for (e.Added and
// Attach: media.Service.ForEdit), from the post as it is now: the
// viewer's. Another's upload is refused with 422, as Mastodon's.
func (s *Server) added(r *http.Request, e *interact.Edit) error {
	p, err := s.Store.OwnPost(r.Context(), e.Author, e.Post)
	if err != nil {
		return err
	}
	if s.Media == nil {
		return nil // the pictures it has, or a refusal (interact.Edit)
	}
	e.Added, e.Attach, err = s.Media.ForEdit(r.Context(), p, e.MediaIDs)
	if retwis.ErrorKind(err) == retwis.NotFound {
		err = retwis.Errorf(retwis.Invalid, "%s", retwis.ErrorMessage(err))
	}
	return err
}

// mediaAttributes reads media_attributes[][id,description,focus] (as
// apiwire.Attributes): the alt text and focus an edit sets, by id, each
// checked, those given.
func mediaAttributes(v url.Values) (map[int64]interact.MediaText, error) {
	objs := apiwire.Attributes(v, "media_attributes", "id", "description", "focus")
	if len(objs) == 0 {
		return nil, nil
	}
	out := make(map[int64]interact.MediaText, len(objs))
	for _, o := range objs {
		id, ok := retwis.ParseID(o["id"])
		if !ok {
			return nil, retwis.Errorf(retwis.Invalid, "media_attributes: %q is not the id of a picture.", o["id"])
		}
		var t interact.MediaText
		if raw, given := o["description"]; given {
			d, err := retwis.NormalizeDescription(raw)
			if err != nil {
				return nil, err
			}
			t.Description = &d
		}
		if raw, given := o["focus"]; given {
			x, y, err := retwis.ParseFocus(raw)
			if err != nil {
				return nil, err
			}
			t.Focus = &[2]float64{x, y}
		}
		out[id] = t
	}
	return out, nil
}

// statusEdit is Mastodon's StatusEdit: one version of a post.
type statusEdit struct {
	Content          string                   `json:"content"`
	SpoilerText      string                   `json:"spoiler_text"`
	Sensitive        bool                     `json:"sensitive"`
	CreatedAt        string                   `json:"created_at"`
	Account          entity.Account           `json:"account"`
	Poll             *struct{}                `json:"poll"`
	MediaAttachments []entity.MediaAttachment `json:"media_attachments"`
	Emojis           []struct{}               `json:"emojis"`
}

// statusHistory answers GET /api/v1/statuses/{id}/history: the versions
// of a post the viewer sees, oldest first as Mastodon lists them (the
// first the original, the last the current one).
func (s *Server) statusHistory(w http.ResponseWriter, r *http.Request) {
	p, cur, ok := s.statusOf(w, r)
	if !ok {
		return
	}
	_, vs, err := s.Store.History(r.Context(), apiwire.Viewer(r).ID, p.ID)
	if err != nil {
		s.Fail(w, r, err)
		return
	}
	st, out := entity.SiteOf(r), make([]statusEdit, 0, len(vs))
	for _, v := range slices.Backward(vs) {
		version := p
		version.Body, version.Warning = v.Body, v.Warning
		content, _ := st.Content(version)
		out = append(out, statusEdit{Content: content, SpoilerText: v.Warning, Sensitive: p.Sensitive || v.Warning != "",
			CreatedAt: entity.Stamp(v.Time), Account: cur.Account, MediaAttachments: st.MediaList(v.Media), Emojis: []struct{}{}})
	}
	apiwire.WriteJSON(w, http.StatusOK, out)
}

// statusSource answers GET /api/v1/statuses/{id}/source: Mastodon's
// StatusSource, the text and warning of the viewer's post as written,
// for an edit form.
func (s *Server) statusSource(w http.ResponseWriter, r *http.Request) {
	p, _, ok := s.statusOf(w, r)
	if !ok {
		return
	}
	if p.AuthorID != apiwire.Viewer(r).ID {
		s.Fail(w, r, retwis.Errorf(retwis.Forbidden, "Only the author of a post reads its source."))
		return
	}
	apiwire.WriteJSON(w, http.StatusOK, struct {
		ID          string `json:"id"`
		Text        string `json:"text"`
		SpoilerText string `json:"spoiler_text"`
	}{entity.ID(p.ID), p.Body, p.Warning})
}
