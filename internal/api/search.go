package api

import (
	"context"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/api/apiwire"
	"github.com/retwis/retwis/internal/api/entity"
	"github.com/retwis/retwis/internal/middleware"
)

// maxQuery bounds a search query, in bytes.
const maxQuery = 200

// searchResults are what a search found, as /api/v2/search answers.
type searchResults struct {
	Accounts []entity.Account `json:"accounts"`
	Statuses []entity.Status  `json:"statuses"`
	Hashtags []entity.Tag     `json:"hashtags"`
}

// search answers GET /api/v2/search?q= (see find).
func (s *Server) search(w http.ResponseWriter, r *http.Request) {
	if out, ok := s.find(w, r); ok {
		apiwire.WriteJSON(w, http.StatusOK, out)
	}
}

// searchV1 answers GET /api/v1/search?q=, which Mastodon 3.0 removed and
// older apps still call: as /api/v2/search, but the hashtags as their
// names.
func (s *Server) searchV1(w http.ResponseWriter, r *http.Request) {
	out, ok := s.find(w, r)
	if !ok {
		return
	}
	names := make([]string, len(out.Hashtags))
	for i, t := range out.Hashtags {
		names[i] = t.Name
	}
	apiwire.WriteJSON(w, http.StatusOK, struct {
		Accounts []entity.Account `json:"accounts"`
		Statuses []entity.Status  `json:"statuses"`
		Hashtags []string         `json:"hashtags"`
	}{out.Accounts, out.Statuses, names})
}

// find runs the search of r: accounts (by a prefix of a username or of a
// word of a display name; with following=true, those the viewer follows
// alone) and hashtags (by prefix), with type= narrowing to one. Text is
// not searched in posts, but a link to a post or a profile of this
// server, or a user@host of it, finds that post or account, resolve or
// not (retwis fetches nothing from elsewhere), a post of account_id's
// alone when it is given. ok is false once the request has been
// answered.
func (s *Server) find(w http.ResponseWriter, r *http.Request) (searchResults, bool) {
	out := searchResults{[]entity.Account{}, []entity.Status{}, []entity.Tag{}}
	q, limit, ok := s.searchQuery(w, r)
	if !ok {
		return out, false
	}
	v := r.URL.Query()
	typ, st := v.Get("type"), entity.SiteOf(r)
	var author int64
	if raw := v.Get("account_id"); raw != "" {
		if author, ok = retwis.ParseID(raw); !ok {
			apiwire.NotFound(w, r)
			return out, false
		}
	}
	var err error
	if link, isLink := linked(r, q); isLink && limit > 0 {
		err = s.findLinked(r, st, link, typ, author, &out)
	} else {
		err = s.findNamed(r, st, q, typ, limit, &out)
	}
	if err != nil {
		s.Fail(w, r, err)
		return out, false
	}
	return out, true
}

// findNamed adds to out the accounts and hashtags named like q (see
// find).
func (s *Server) findNamed(r *http.Request, st entity.Site, q, typ string, limit int, out *searchResults) error {
	var err error
	if (typ == "" || typ == "accounts") && limit > 0 && !strings.HasPrefix(q, "#") {
		following := apiwire.Flag(r.URL.Query(), "following")
		if out.Accounts, err = s.findAccounts(r.Context(), st, q, limit, following); err != nil {
			return err
		}
	}
	if (typ == "" || typ == "hashtags") && limit > 0 && !strings.HasPrefix(q, "@") {
		tags, err := s.Store.CompleteTags(r.Context(), strings.TrimPrefix(q, "#"), limit)
		if err != nil {
			return err
		}
		out.Hashtags, err = s.tags.Entities(r.Context(), st, apiwire.Viewer(r).ID, tags)
		return err
	}
	return nil
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
// (a leading @ ignored), the most followed first; with following, of
// those the viewer follows alone, from the search's first
// followingPool: a bounded search, not one of every account followed.
func (s *Server) findAccounts(ctx context.Context, st entity.Site, q string, limit int, following bool) ([]entity.Account, error) {
	u, _ := middleware.ViewerFrom(ctx)
	viewer := u.ID
	if following && viewer == 0 {
		return []entity.Account{}, nil
	}
	n := limit
	if following {
		n = followingPool
	}
	people, err := s.Store.SearchPeople(ctx, strings.TrimPrefix(q, "@"), n)
	if err != nil {
		return nil, err
	}
	uids := make([]int64, len(people))
	for i, p := range people {
		uids[i] = p.User.ID
	}
	if following {
		if uids, err = s.followed(ctx, viewer, uids, limit); err != nil {
			return nil, err
		}
	}
	return s.Accounts(ctx, st, uids)
}

// followingPool is how many accounts a search with following=true
// looks among for those the viewer follows.
const followingPool = 50

// followed returns the first limit of uids that viewer follows, in
// their order.
func (s *Server) followed(ctx context.Context, viewer int64, uids []int64, limit int) ([]int64, error) {
	ties, err := s.Store.Relations(ctx, viewer, uids)
	if err != nil {
		return nil, err
	}
	var out []int64
	for i, t := range ties {
		if t.Following && len(out) < limit {
			out = append(out, uids[i])
		}
	}
	return out, nil
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
	out, err := s.findAccounts(r.Context(), entity.SiteOf(r), q, limit, apiwire.Flag(r.URL.Query(), "following"))
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
