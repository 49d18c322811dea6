package lists

import (
	"net/http"

	"github.com/retwis/retwis/internal/api/apiwire"
	"github.com/retwis/retwis/internal/store/filters"
)

// timeline answers GET /api/v1/timelines/list/{id}: the posts of the
// list's members, paged as the home timeline is.
func (s *Server) timeline(w http.ResponseWriter, r *http.Request) {
	lid, ok := listID(w, r)
	if !ok {
		return
	}
	p, ok := s.PageOf(w, r)
	if !ok {
		return
	}
	page, err := s.lists().Timeline(r.Context(), apiwire.Viewer(r).ID, lid, p.Cursor, p.Limit)
	if err != nil {
		s.Fail(w, r, err)
		return
	}
	s.WriteFiltered(w, r, filters.Home, page, p.Since) // a list is read in the home context, as Mastodon filters it
}
