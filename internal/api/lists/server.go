// Package lists is the client API's lists (Mastodon's lists): a user's
// lists (lists.go), their members (members.go) and their timelines
// (timeline.go), on internal/store/lists. Exclusive lists (Mastodon
// 4.2's, whose members' posts leave the home timeline) are refused.
package lists

import (
	"net/http"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/api/apiwire"
	"github.com/retwis/retwis/internal/api/entity"
	liststore "github.com/retwis/retwis/internal/store/lists"
)

// Server serves the lists' routes of the client API, on the API's kit.
type Server struct{ *apiwire.Kit }

// lists returns the lists' store, on the kit's.
func (s *Server) lists() *liststore.Store { return liststore.New(s.Store) }

// Routes registers the routes on mux, the client API's.
func (s *Server) Routes(mux *http.ServeMux) {
	mux.HandleFunc("GET /api/v1/lists", s.Need(apiwire.ReadLists, s.index))
	mux.HandleFunc("POST /api/v1/lists", s.Need(apiwire.WriteLists, s.create))
	mux.HandleFunc("GET /api/v1/lists/{id}", s.Need(apiwire.ReadLists, s.show))
	mux.HandleFunc("PUT /api/v1/lists/{id}", s.Need(apiwire.WriteLists, s.update))
	mux.HandleFunc("DELETE /api/v1/lists/{id}", s.Need(apiwire.WriteLists, s.delete))
	mux.HandleFunc("GET /api/v1/lists/{id}/accounts", s.Need(apiwire.ReadLists, s.members))
	mux.HandleFunc("POST /api/v1/lists/{id}/accounts", s.Need(apiwire.WriteLists, s.addMembers))
	mux.HandleFunc("DELETE /api/v1/lists/{id}/accounts", s.Need(apiwire.WriteLists, s.removeMembers))
	mux.HandleFunc("GET /api/v1/accounts/{id}/lists", s.Need(apiwire.ReadLists, s.accountLists))
	mux.HandleFunc("GET /api/v1/timelines/list/{id}", s.Need(apiwire.ReadLists, s.timeline))
}

// List is Mastodon's List entity.
type List struct {
	ID            string `json:"id"`
	Title         string `json:"title"`
	RepliesPolicy string `json:"replies_policy"`
	Exclusive     bool   `json:"exclusive"`
}

// entityOf returns the entity of l.
func entityOf(l liststore.List) List {
	return List{ID: entity.ID(l.ID), Title: l.Title, RepliesPolicy: l.RepliesPolicy}
}

// entities returns the entities of ls.
func entities(ls []liststore.List) []List {
	out := make([]List, len(ls))
	for i, l := range ls {
		out[i] = entityOf(l)
	}
	return out
}

// listID reads the list id of the path; an id that cannot be one is
// answered 404, as a list not found.
func listID(w http.ResponseWriter, r *http.Request) (int64, bool) {
	id, ok := retwis.ParseID(r.PathValue("id"))
	if !ok {
		apiwire.NotFound(w, r)
	}
	return id, ok
}
