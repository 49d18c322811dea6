package api

import (
	"context"
	"net/http"
	"time"

	"github.com/retwis/retwis/internal/api/apiwire"
	"github.com/retwis/retwis/internal/api/entity"
)

// tagHistoryDays is how many days a Tag's history covers, as Mastodon's.
const tagHistoryDays = 7

// tagEntities returns the Tag entities of tags, as written, with their
// history: one round trip whatever their number.
func (s *Server) tagEntities(ctx context.Context, st entity.Site, tags []string) ([]entity.Tag, error) {
	history, err := s.Store.TagHistory(ctx, tags, tagHistoryDays, time.Now())
	if err != nil {
		return nil, err
	}
	out := make([]entity.Tag, len(tags))
	for i, t := range tags {
		out[i] = st.Tag(t, history[i])
	}
	return out, nil
}

// showTag answers GET /api/v1/tags/{name}: the tag as first written,
// with its history; 404 for a tag nobody used.
func (s *Server) showTag(w http.ResponseWriter, r *http.Request) {
	name, _, err := s.Store.TagInfo(r.Context(), r.PathValue("name"), 0, time.Now())
	if err != nil {
		s.Fail(w, r, err)
		return
	}
	tags, err := s.tagEntities(r.Context(), entity.SiteOf(r), []string{name})
	if err != nil {
		s.Fail(w, r, err)
		return
	}
	apiwire.WriteJSON(w, http.StatusOK, tags[0])
}
