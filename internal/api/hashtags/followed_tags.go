package hashtags

import (
	"net/http"

	"github.com/retwis/retwis/internal/api/apiwire"
	"github.com/retwis/retwis/internal/api/entity"
	"github.com/retwis/retwis/internal/store/tagfollows"
)

// followedTags answers GET /api/v1/followed_tags: the tags the viewer
// follows, the latest followed first (limit 100, at most 200, as
// Mastodon's), paged by the Link header (max_id, min_id, since_id: the
// ids of the follows).
func (s *Server) followedTags(w http.ResponseWriter, r *http.Request) {
	page, err := apiwire.ReadPage(r.URL.Query(), 100, 200)
	if err != nil {
		s.Fail(w, r, err)
		return
	}
	viewer := apiwire.Viewer(r).ID
	followed, more, err := s.follows().Followed(r.Context(), viewer, page.Cursor, page.Limit)
	if err != nil {
		s.Fail(w, r, err)
		return
	}
	followed = apiwire.NewerThan(followed, page.Since, func(f tagfollows.Followed) int64 { return f.ID })
	names := make([]string, len(followed))
	for i, f := range followed {
		names[i] = f.Name
	}
	out, err := s.Entities(r.Context(), entity.SiteOf(r), viewer, names)
	if err != nil {
		s.Fail(w, r, err)
		return
	}
	if len(followed) > 0 {
		apiwire.Link(w, r, followed[0].ID, followed[len(followed)-1].ID, more)
	}
	apiwire.WriteJSON(w, http.StatusOK, out)
}
