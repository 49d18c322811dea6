package announcements

import (
	"net/http"
	"time"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/api/apiwire"
	"github.com/retwis/retwis/internal/api/entity"
	"github.com/retwis/retwis/internal/store/announcements"
)

// Announcement is Mastodon's Announcement entity. Its mentions,
// statuses and emojis are always empty: its text links those it names
// as a post's does, and custom emojis do not exist here.
type Announcement struct {
	ID          string          `json:"id"`
	Content     string          `json:"content"`
	StartsAt    *string         `json:"starts_at"`
	EndsAt      *string         `json:"ends_at"`
	AllDay      bool            `json:"all_day"`
	PublishedAt string          `json:"published_at"`
	UpdatedAt   string          `json:"updated_at"`
	Read        bool            `json:"read"`
	Mentions    []struct{}      `json:"mentions"`
	Statuses    []struct{}      `json:"statuses"`
	Tags        []entity.TagRef `json:"tags"`
	Emojis      []struct{}      `json:"emojis"`
	Reactions   []Reaction      `json:"reactions"`
}

// Reaction is Mastodon's Reaction entity, of a unicode emoji (no url).
type Reaction struct {
	Name  string `json:"name"`
	Count int64  `json:"count"`
	Me    bool   `json:"me"`
}

// entityOf returns the entity of a as site shows it.
func entityOf(site entity.Site, a announcements.Shown) Announcement {
	content, tags := site.Content(retwis.Post{Body: a.Text})
	e := Announcement{ID: entity.ID(a.ID), Content: content, StartsAt: stamp(a.Starts), EndsAt: stamp(a.Ends),
		PublishedAt: entity.Stamp(a.Published), UpdatedAt: entity.Stamp(a.Updated), Read: a.Read,
		Mentions: []struct{}{}, Statuses: []struct{}{}, Tags: tags, Emojis: []struct{}{}, Reactions: []Reaction{}}
	for _, r := range a.Reactions {
		e.Reactions = append(e.Reactions, Reaction{Name: r.Name, Count: r.Count, Me: r.Me})
	}
	return e
}

// stamp writes t, or nil if it is zero.
func stamp(t time.Time) *string {
	if t.IsZero() {
		return nil
	}
	s := entity.Stamp(t)
	return &s
}

// list answers GET /api/v1/announcements: the active ones, oldest first,
// read or not.
func (s *Server) list(w http.ResponseWriter, r *http.Request) {
	all, err := announcements.New(s.Store).Active(r.Context(), apiwire.Viewer(r).ID, time.Now())
	if err != nil {
		s.Fail(w, r, err)
		return
	}
	site, out := entity.SiteOf(r), make([]Announcement, len(all))
	for i, a := range all {
		out[i] = entityOf(site, a)
	}
	apiwire.WriteJSON(w, http.StatusOK, out)
}

// dismiss answers POST /api/v1/announcements/:id/dismiss: marks it read
// by the viewer; an empty object.
func (s *Server) dismiss(w http.ResponseWriter, r *http.Request) {
	s.onAnnouncement(w, r, func(an *announcements.Store, uid, id int64) error { return an.Dismiss(r.Context(), uid, id) })
}

// react answers PUT /api/v1/announcements/:id/reactions/:name: the
// viewer's reaction of emoji name; an empty object.
func (s *Server) react(w http.ResponseWriter, r *http.Request) {
	s.onAnnouncement(w, r, func(an *announcements.Store, uid, id int64) error {
		return an.React(r.Context(), uid, id, r.PathValue("name"))
	})
}

// unreact answers DELETE /api/v1/announcements/:id/reactions/:name: the
// viewer's reaction taken back; an empty object.
func (s *Server) unreact(w http.ResponseWriter, r *http.Request) {
	s.onAnnouncement(w, r, func(an *announcements.Store, uid, id int64) error {
		return an.Unreact(r.Context(), uid, id, r.PathValue("name"))
	})
}

// onAnnouncement does act on the announcement of the path's id for the
// viewer, and answers an empty object.
func (s *Server) onAnnouncement(w http.ResponseWriter, r *http.Request, act func(an *announcements.Store, uid, id int64) error) {
	id, ok := retwis.ParseID(r.PathValue("id"))
	if !ok {
		apiwire.NotFound(w, r)
		return
	}
	if err := act(announcements.New(s.Store), apiwire.Viewer(r).ID, id); err != nil {
		s.Fail(w, r, err)
		return
	}
	apiwire.EmptyObject(w, r)
}
