package web

import (
	"net/http"
	"strings"

	"github.com/retwis/retwis/internal/middleware"
	"github.com/retwis/retwis/internal/web/complete"
	"github.com/retwis/retwis/internal/web/page"
)

// Bounds of a search page.
const (
	peopleResults = 20 // users it lists
	tagResults    = 10 // tags it lists
)

// search serves GET /search?q=, the search box of every page, which
// works without JavaScript: the people found by q (each word the prefix
// of a username or of a word of a display name, ignoring case and
// accents), the most followed first, and the tags in use that begin
// with it. A q that starts with @ looks for people only, with # for tags
// only.
func (s *Server) search(w http.ResponseWriter, r *http.Request) {
	q, err := complete.Query(r)
	if err != nil {
		s.MW.Fail(w, r, err)
		return
	}
	v := page.View{Title: "Search", Query: q}
	if u, ok := middleware.ViewerFrom(r.Context()); ok {
		v.Viewer = &u
	}
	switch {
	case strings.HasPrefix(q, "@"):
		v.Scope = "people"
	case strings.HasPrefix(q, "#"):
		v.Scope = "tags"
	}
	if q != "" && v.Scope != "tags" {
		if v.People, err = s.Store.SearchPeople(r.Context(), q, peopleResults); err != nil {
			s.MW.Fail(w, r, err)
			return
		}
	}
	if q != "" && v.Scope != "people" {
		if v.Tags, err = s.Store.CompleteTags(r.Context(), q, tagResults); err != nil {
			s.MW.Fail(w, r, err)
			return
		}
	}
	s.Render(w, r, http.StatusOK, "search", v)
}
