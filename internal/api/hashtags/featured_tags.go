package hashtags

import (
	"net/http"
	"time"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/api/apiwire"
	"github.com/retwis/retwis/internal/api/entity"
	"github.com/retwis/retwis/internal/store/featured"
)

// FeaturedTag is Mastodon's FeaturedTag entity. Its counts are the tag's
// on the whole instance, from the tag's indexes, not the account's alone.
type FeaturedTag struct {
	ID            string  `json:"id"`
	Name          string  `json:"name"`
	URL           string  `json:"url"`
	StatusesCount string  `json:"statuses_count"`
	LastStatusAt  *string `json:"last_status_at"`
}

// featuredEntities returns the entities of tags.
func featuredEntities(st entity.Site, tags []featured.Tag) []FeaturedTag {
	out := make([]FeaturedTag, len(tags))
	for i, t := range tags {
		out[i] = FeaturedTag{ID: entity.ID(t.ID), Name: t.Name, URL: st.TagURL(t.Name), StatusesCount: entity.ID(t.Statuses)}
		if !t.Last.IsZero() {
			day := t.Last.Format(time.DateOnly)
			out[i].LastStatusAt = &day
		}
	}
	return out
}

// featuredTags answers GET /api/v1/featured_tags (the viewer's) and GET
// /api/v1/accounts/{id}/featured_tags (the account's, which the viewer
// sees: 404 otherwise): the tags featured, the earliest first.
func (s *Server) featuredTags(w http.ResponseWriter, r *http.Request) {
	uid := apiwire.Viewer(r).ID
	if r.PathValue("id") != "" {
		var ok bool
		if uid, ok = retwis.ParseID(r.PathValue("id")); !ok {
			apiwire.NotFound(w, r)
			return
		}
		if err := s.Store.Shown(r.Context(), apiwire.Viewer(r).ID, uid); err != nil {
			s.Fail(w, r, err)
			return
		}
	}
	tags, err := featured.Of(r.Context(), s.Store, uid)
	if err != nil {
		s.Fail(w, r, err)
		return
	}
	apiwire.WriteJSON(w, http.StatusOK, featuredEntities(entity.SiteOf(r), tags))
}

// featureTag answers POST /api/v1/featured_tags: name, a tag, is
// featured on the viewer's profile (422 if it is not a tag, or if ten
// are already).
func (s *Server) featureTag(w http.ResponseWriter, r *http.Request) {
	v, err := apiwire.Params(r)
	if err != nil {
		apiwire.BadRequest(w, r, err)
		return
	}
	t, err := featured.Feature(r.Context(), s.Store, apiwire.Viewer(r).ID, v.Get("name"))
	if err != nil {
		s.Fail(w, r, err)
		return
	}
	apiwire.WriteJSON(w, http.StatusOK, featuredEntities(entity.SiteOf(r), []featured.Tag{t})[0])
}

// unfeatureTag answers DELETE /api/v1/featured_tags/{id}: an empty
// object, or 404 for a tag the viewer does not feature.
func (s *Server) unfeatureTag(w http.ResponseWriter, r *http.Request) {
	id, ok := retwis.ParseID(r.PathValue("id"))
	if !ok {
		apiwire.NotFound(w, r)
		return
	}
	if err := featured.Unfeature(r.Context(), s.Store, apiwire.Viewer(r).ID, id); err != nil {
		s.Fail(w, r, err)
		return
	}
	apiwire.EmptyObject(w, r)
}

// featuredSuggestions answers GET /api/v1/featured_tags/suggestions: up
// to 10 tags the viewer used lately and does not feature, as Tags.
func (s *Server) featuredSuggestions(w http.ResponseWriter, r *http.Request) {
	viewer := apiwire.Viewer(r).ID
	names, err := featured.Suggestions(r.Context(), s.Store, viewer, featured.Max)
	if err != nil {
		s.Fail(w, r, err)
		return
	}
	out, err := s.Entities(r.Context(), entity.SiteOf(r), viewer, names)
	if err != nil {
		s.Fail(w, r, err)
		return
	}
	apiwire.WriteJSON(w, http.StatusOK, out)
}
