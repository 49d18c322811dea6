package api

import (
	"context"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/retwis/retwis/internal/api/apiwire"
	"github.com/retwis/retwis/internal/api/entity"
)

// maxQuery bounds a search query, in bytes.
const maxQuery = 200

// search answers GET /api/v2/search?q=: accounts (by a prefix of a
// username or of a word of a display name) and hashtags (by prefix),
// with type= narrowing to one; statuses are not searchable (an empty
// list). resolve is ignored: retwis does not federate.
func (s *Server) search(w http.ResponseWriter, r *http.Request) {
	q, limit, ok := s.searchQuery(w, r)
	if !ok {
		return
	}
	typ := r.URL.Query().Get("type")
	out := struct {
		Accounts []entity.Account `json:"accounts"`
		Statuses []entity.Status  `json:"statuses"`
		Hashtags []entity.Tag     `json:"hashtags"`
	}{[]entity.Account{}, []entity.Status{}, []entity.Tag{}}
	st := entity.SiteOf(r)
	if (typ == "" || typ == "accounts") && limit > 0 && !strings.HasPrefix(q, "#") {
		var err error
		if out.Accounts, err = s.findAccounts(r.Context(), st, q, limit); err != nil {
			s.Fail(w, r, err)
			return
		}
	}
	if (typ == "" || typ == "hashtags") && limit > 0 && !strings.HasPrefix(q, "@") {
		tags, err := s.Store.CompleteTags(r.Context(), strings.TrimPrefix(q, "#"), limit)
		if err != nil {
			s.Fail(w, r, err)
			return
		}
		if out.Hashtags, err = s.tags.Entities(r.Context(), st, apiwire.Viewer(r).ID, tags); err != nil {
			s.Fail(w, r, err)
			return
		}
	}
	apiwire.WriteJSON(w, http.StatusOK, out)
}

// searchQuery reads a search's q and limit (20, at most 40), and its
// offset: past 0 there is nothing (the indexes rank, they do not page),
// and limit is 0. ok is false once the request has been answered: 400
// for a missing or overlong q, 422 for a bad limit.
func (s *Server) searchQuery(w http.ResponseWriter, r *http.Request) (q string, limit int, ok bool) {
	v := r.URL.Query()
	q = strings.TrimSpace(v.Get("q"))
	if q == "" || len(q) > maxQuery || !utf8.ValidString(q) {
		apiwire.RenderError(w, r, http.StatusBadRequest, "q must be 1 to 200 bytes of text.")
		return "", 0, false
	}
	limit, err := apiwire.ReadLimit(v, apiwire.DefaultLimit, apiwire.MaxLimit)
	if err != nil {
		s.Fail(w, r, err)
		return "", 0, false
	}
	if off := v.Get("offset"); off != "" && off != "0" {
		limit = 0
	}
	return q, limit, true
}

// findAccounts returns the accounts that the people search finds for q
// (a leading @ ignored), the most followed first.
func (s *Server) findAccounts(ctx context.Context, st entity.Site, q string, limit int) ([]entity.Account, error) {
	people, err := s.Store.SearchPeople(ctx, strings.TrimPrefix(q, "@"), limit)
	if err != nil {
		return nil, err
	}
	uids := make([]int64, len(people))
	for i, p := range people {
		uids[i] = p.User.ID
	}
	return s.Accounts(ctx, st, uids)
}

// searchAccounts answers GET /api/v1/accounts/search?q=: the accounts
// found as by /api/v2/search (apps use it to complete @mentions).
func (s *Server) searchAccounts(w http.ResponseWriter, r *http.Request) {
	q, limit, ok := s.searchQuery(w, r)
	if !ok {
		return
	}
	if limit == 0 {
		apiwire.WriteJSON(w, http.StatusOK, []entity.Account{})
		return
	}
	out, err := s.findAccounts(r.Context(), entity.SiteOf(r), q, limit)
	if err != nil {
		s.Fail(w, r, err)
		return
	}
	apiwire.WriteJSON(w, http.StatusOK, out)
}

// trendingTags answers GET /api/v1/trends/tags: the tags most used
// lately, the heaviest first (limit 10, at most 20).
func (s *Server) trendingTags(w http.ResponseWriter, r *http.Request) {
	limit, err := apiwire.ReadLimit(r.URL.Query(), 10, 20)
	if err != nil {
		s.Fail(w, r, err)
		return
	}
	trends, err := s.Store.Trending(r.Context(), limit, time.Now())
	if err != nil {
		s.Fail(w, r, err)
		return
	}
	names := make([]string, len(trends))
	for i, t := range trends {
		names[i] = t.Tag
	}
	out, err := s.tags.Entities(r.Context(), entity.SiteOf(r), apiwire.Viewer(r).ID, names)
	if err != nil {
		s.Fail(w, r, err)
		return
	}
	apiwire.WriteJSON(w, http.StatusOK, out)
}
