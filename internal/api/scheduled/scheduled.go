package scheduled

import (
	"net/http"
	"time"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/api/apiwire"
	"github.com/retwis/retwis/internal/api/entity"
	mediastore "github.com/retwis/retwis/internal/store/media"
	"github.com/retwis/retwis/internal/store/posts"
	"github.com/retwis/retwis/internal/store/scheduled"
)

// Status is Mastodon's ScheduledStatus entity.
type Status struct {
	ID               string                   `json:"id"`
	ScheduledAt      string                   `json:"scheduled_at"`
	Params           Params                   `json:"params"`
	MediaAttachments []entity.MediaAttachment `json:"media_attachments"`
}

// Params is a ScheduledStatus's params: what the status will be
// published with (no polls or language exist here: null; media_ids
// null for none).
type Params struct {
	Text          string    `json:"text"`
	Poll          *struct{} `json:"poll"`
	MediaIDs      []string  `json:"media_ids"`
	Sensitive     *bool     `json:"sensitive"`
	SpoilerText   *string   `json:"spoiler_text"`
	Visibility    string    `json:"visibility"`
	InReplyToID   *string   `json:"in_reply_to_id"`
	Language      *string   `json:"language"`
	ScheduledAt   *string   `json:"scheduled_at"`
	Idempotency   *string   `json:"idempotency"`
	WithRateLimit bool      `json:"with_rate_limit"`
}

// entityOf returns the entity of p, its pictures those of pics (by id)
// for st.
func entityOf(st entity.Site, p scheduled.Post, pics map[int64]mediastore.Record) Status {
	e := Status{ID: entity.ID(p.ID), ScheduledAt: entity.Stamp(p.At), MediaAttachments: []entity.MediaAttachment{},
		Params: Params{Text: p.Text, Visibility: p.Visibility}}
	for _, mid := range p.Media {
		e.Params.MediaIDs = append(e.Params.MediaIDs, entity.ID(mid))
		if r, ok := pics[mid]; ok {
			e.MediaAttachments = append(e.MediaAttachments, st.Media(r.Attachment))
		}
	}
	if e.Params.Visibility == "" {
		e.Params.Visibility = retwis.Public.String()
	}
	if p.Warning != "" || p.Sensitive {
		sensitive := true
		e.Params.Sensitive = &sensitive
	}
	if p.Warning != "" {
		e.Params.SpoilerText = &p.Warning
	}
	if p.InReplyTo != 0 {
		id := entity.ID(p.InReplyTo)
		e.Params.InReplyToID = &id
	}
	if p.Key != "" {
		e.Params.Idempotency = &p.Key
	}
	return e
}

// Create answers POST /api/v1/statuses with scheduled_at (at, as sent):
// d is scheduled rather than published, and the answer is its
// ScheduledStatus. A time past is no schedule, as Mastodon has it: d is
// published at once by publish; one less than scheduled.MinLead ahead is
// refused (422).
func (s *Server) Create(w http.ResponseWriter, r *http.Request, d posts.Draft, at string, publish func()) {
	t, err := scheduled.ParseAt(at, nil)
	if err != nil {
		s.Fail(w, r, err)
		return
	}
	if !t.After(time.Now()) {
		publish()
		return
	}
	p, err := scheduled.New(s.Store).Schedule(r.Context(), scheduled.Of(d, t))
	if err != nil {
		s.Fail(w, r, err)
		return
	}
	s.write(w, r, p)
}

// write answers the entity of p.
func (s *Server) write(w http.ResponseWriter, r *http.Request, p scheduled.Post) {
	out, err := s.entities(r, []scheduled.Post{p})
	if err != nil {
		s.Fail(w, r, err)
		return
	}
	apiwire.WriteJSON(w, http.StatusOK, out[0])
}

// entities returns the entities of the viewer's ps, their pictures read
// in one round trip.
func (s *Server) entities(r *http.Request, ps []scheduled.Post) ([]Status, error) {
	var mids []int64
	for _, p := range ps {
		mids = append(mids, p.Media...)
	}
	var pics map[int64]mediastore.Record
	if s.Media != nil && len(mids) > 0 {
		var err error
		if pics, err = s.Media.Records().Found(r.Context(), apiwire.Viewer(r).ID, mids); err != nil {
			return nil, err
		}
	}
	st, out := entity.SiteOf(r), make([]Status, len(ps))
	for i, p := range ps {
		out[i] = entityOf(st, p, pics)
	}
	return out, nil
}

// list answers GET /api/v1/scheduled_statuses: the viewer's, newest id
// first, paged by max_id, since_id, min_id and limit (20, at most 40),
// with a Link header.
func (s *Server) list(w http.ResponseWriter, r *http.Request) {
	pg, ok := s.PageOf(w, r)
	if !ok {
		return
	}
	all, err := scheduled.New(s.Store).List(r.Context(), apiwire.Viewer(r).ID)
	if err != nil {
		s.Fail(w, r, err)
		return
	}
	page, older := pageOf(all, pg)
	out, err := s.entities(r, page)
	if err != nil {
		s.Fail(w, r, err)
		return
	}
	if len(page) > 0 {
		apiwire.Link(w, r, page[0].ID, page[len(page)-1].ID, older)
	}
	apiwire.WriteJSON(w, http.StatusOK, out)
}

// pageOf returns the page pg of all (newest id first), and whether
// there are older ones past it.
func pageOf(all []scheduled.Post, pg apiwire.Page) ([]scheduled.Post, bool) {
	var in []scheduled.Post
	for _, p := range all {
		if (pg.Cursor.Before == 0 || p.ID < pg.Cursor.Before) && p.ID > pg.Cursor.After && p.ID > pg.Since {
			in = append(in, p)
		}
	}
	if len(in) <= pg.Limit {
		return in, false
	}
	if pg.Cursor.After != 0 { // min_id: those just newer than it
		return in[len(in)-pg.Limit:], true
	}
	return in[:pg.Limit], true
}

// show answers GET /api/v1/scheduled_statuses/:id: one of the viewer's.
func (s *Server) show(w http.ResponseWriter, r *http.Request) {
	id, ok := retwis.ParseID(r.PathValue("id"))
	if !ok {
		apiwire.NotFound(w, r)
		return
	}
	p, err := scheduled.New(s.Store).Get(r.Context(), apiwire.Viewer(r).ID, id)
	if err != nil {
		s.Fail(w, r, err)
		return
	}
	s.write(w, r, p)
}

// reschedule answers PUT /api/v1/scheduled_statuses/:id (scheduled_at):
// the status moved to its new time.
func (s *Server) reschedule(w http.ResponseWriter, r *http.Request) {
	id, ok := retwis.ParseID(r.PathValue("id"))
	if !ok {
		apiwire.NotFound(w, r)
		return
	}
	v, err := apiwire.Params(r)
	if err != nil {
		apiwire.BadRequest(w, r, err)
		return
	}
	t, err := scheduled.ParseAt(v.Get("scheduled_at"), nil)
	if err != nil {
		s.Fail(w, r, err)
		return
	}
	p, err := scheduled.New(s.Store).Reschedule(r.Context(), apiwire.Viewer(r).ID, id, t)
	if err != nil {
		s.Fail(w, r, err)
		return
	}
	s.write(w, r, p)
}

// cancel answers DELETE /api/v1/scheduled_statuses/:id: an empty object.
func (s *Server) cancel(w http.ResponseWriter, r *http.Request) {
	id, ok := retwis.ParseID(r.PathValue("id"))
	if !ok {
		apiwire.NotFound(w, r)
		return
	}
	if err := scheduled.New(s.Store).Cancel(r.Context(), apiwire.Viewer(r).ID, id); err != nil {
		s.Fail(w, r, err)
		return
	}
	apiwire.EmptyObject(w, r)
}
