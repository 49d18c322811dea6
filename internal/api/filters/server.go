// Package filters is the client API's filters: Mastodon's filters v2, a
// user's filters with their keywords and posts, written and read
// (filters.go, keywords.go, statuses.go, their parameters in
// params.go), and v1's read of them, one v1 filter per keyword (v1.go).
// The filters are applied where the lists are read, by the entities'
// builder (entity.Builder.Filtered), for the API and the pages alike
// (internal/store/filters).
package filters

import (
	"context"
	"net/http"
	"net/url"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/api/apiwire"
	"github.com/retwis/retwis/internal/api/entity"
)

// Server serves the filters' routes of the client API, on the API's kit.
type Server struct{ *apiwire.Kit }

// Routes registers the routes on mux, the client API's. The reads of a
// filter's keywords and posts, and of one keyword or post, share one
// pattern (read), which Go's mux could not tell apart:
// /api/v2/filters/{filter_id}/keywords is /api/v2/filters/keywords/{id}
// for a filter named "keywords".
func (s *Server) Routes(mux *http.ServeMux) {
	mux.HandleFunc("GET /api/v2/filters", s.Need(apiwire.ReadFilters, s.list))
	mux.HandleFunc("POST /api/v2/filters", s.Need(apiwire.WriteFilters, s.create))
	mux.HandleFunc("GET /api/v2/filters/{id}", s.Need(apiwire.ReadFilters, s.show))
	mux.HandleFunc("PUT /api/v2/filters/{id}", s.Need(apiwire.WriteFilters, s.update))
	mux.HandleFunc("DELETE /api/v2/filters/{id}", s.Need(apiwire.WriteFilters, s.delete))
	mux.HandleFunc("GET /api/v2/filters/{filter_id}/{what}", s.Need(apiwire.ReadFilters, s.read))
	mux.HandleFunc("POST /api/v2/filters/{filter_id}/keywords", s.Need(apiwire.WriteFilters, s.addKeyword))
	mux.HandleFunc("PUT /api/v2/filters/keywords/{id}", s.Need(apiwire.WriteFilters, s.updateKeyword))
	mux.HandleFunc("DELETE /api/v2/filters/keywords/{id}", s.Need(apiwire.WriteFilters, s.deleteKeyword))
	mux.HandleFunc("POST /api/v2/filters/{filter_id}/statuses", s.Need(apiwire.WriteFilters, s.addStatus))
	mux.HandleFunc("DELETE /api/v2/filters/statuses/{id}", s.Need(apiwire.WriteFilters, s.deleteStatus))
	mux.HandleFunc("GET /api/v1/filters", s.Need(apiwire.ReadFilters, s.v1List))
	mux.HandleFunc("GET /api/v1/filters/{id}", s.Need(apiwire.ReadFilters, s.v1Show))
	mux.HandleFunc("POST /api/v1/filters", s.Need(apiwire.WriteFilters, s.v1Create))
	mux.HandleFunc("PUT /api/v1/filters/{id}", s.Need(apiwire.WriteFilters, s.v1Update))
	mux.HandleFunc("DELETE /api/v1/filters/{id}", s.Need(apiwire.WriteFilters, s.v1Delete))
}

// read answers the reads under a filter: GET
// /api/v2/filters/{filter_id}/keywords and …/statuses, the filter's
// keywords and posts; GET /api/v2/filters/keywords/{id} and
// …/statuses/{id}, one of them.
func (s *Server) read(w http.ResponseWriter, r *http.Request) {
	first, second := r.PathValue("filter_id"), r.PathValue("what")
	switch {
	case second == "keywords":
		answer(s, w, r, first, func(ctx context.Context, uid, id int64) (any, error) {
			f, err := s.Filters.Get(ctx, uid, id)
			return entity.FilterOf(f).Keywords, err
		})
	case second == "statuses":
		answer(s, w, r, first, func(ctx context.Context, uid, id int64) (any, error) {
			f, err := s.Filters.Get(ctx, uid, id)
			return entity.FilterOf(f).Statuses, err
		})
	case first == "keywords":
		answer(s, w, r, second, func(ctx context.Context, uid, id int64) (any, error) {
			_, k, err := s.Filters.KeywordOf(ctx, uid, id)
			return entity.KeywordOf(k), err
		})
	case first == "statuses":
		answer(s, w, r, second, func(ctx context.Context, uid, id int64) (any, error) {
			_, ref, err := s.Filters.StatusOf(ctx, uid, id)
			return entity.StatusRefOf(ref), err
		})
	default:
		apiwire.NotFound(w, r)
	}
}

// answer answers with what read returns of the viewer's filter, keyword
// or post of the id raw (404 for no id, or none of the viewer's).
func answer(s *Server, w http.ResponseWriter, r *http.Request, raw string, read func(ctx context.Context, uid, id int64) (any, error)) {
	id, ok := pathID(w, r, raw)
	if !ok {
		return
	}
	out, err := read(r.Context(), apiwire.Viewer(r).ID, id)
	if err != nil {
		s.Fail(w, r, err)
		return
	}
	apiwire.WriteJSON(w, http.StatusOK, out)
}

// pathParams reads the id of a filter, keyword or post that the path
// names by name, then the request's parameters; ok is false once the
// request has been answered (404 for a malformed id, 400 for parameters
// that cannot be read).
func pathParams(w http.ResponseWriter, r *http.Request, name string) (int64, url.Values, bool) {
	id, ok := pathID(w, r, r.PathValue(name))
	if !ok {
		return 0, nil, false
	}
	v, err := apiwire.Params(r)
	if err != nil {
		apiwire.BadRequest(w, r, err)
		return 0, nil, false
	}
	return id, v, true
}

// pathID reads the id of a filter, keyword or post in a path; a
// malformed one answers 404 (ok false).
func pathID(w http.ResponseWriter, r *http.Request, raw string) (int64, bool) {
	id, ok := retwis.ParseID(raw)
	if !ok {
		apiwire.NotFound(w, r)
	}
	return id, ok
}
