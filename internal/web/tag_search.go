package web

import (
	"net/http"
	"strings"
	"time"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/middleware"
	"github.com/retwis/retwis/internal/web/complete"
	"github.com/retwis/retwis/internal/web/page"
)

// searchResults bounds the tags a search lists.
const searchResults = 20

// searchTags serves GET /tags?q=, the tag search box of the timeline
// page, which works without JavaScript: a q that is a tag in use
// (ignoring case, accents and a leading #) goes to its page; any other
// lists the tags in use that begin with it, the most used first; no q
// lists the trending tags.
func (s *Server) searchTags(w http.ResponseWriter, r *http.Request) {
	q, err := complete.Query(r)
	if err != nil {
		s.MW.Fail(w, r, err)
		return
	}
	v := page.View{Title: "Tags", Query: q}
	if u, ok := middleware.ViewerFrom(r.Context()); ok {
		v.Viewer = &u
	}
	if q == "" {
		v.Trends, err = s.Store.Trending(r.Context(), searchResults, time.Now())
	} else {
		v.Tags, err = s.Store.CompleteTags(r.Context(), q, searchResults)
	}
	if err != nil {
		s.MW.Fail(w, r, err)
		return
	}
	for _, tag := range v.Tags {
		if retwis.FoldTag(tag) == retwis.FoldTag(strings.TrimPrefix(q, "#")) {
			http.Redirect(w, r, retwis.TagPath(tag), http.StatusSeeOther)
			return
		}
	}
	s.Render(w, r, http.StatusOK, "tags", v)
}
