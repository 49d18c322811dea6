package api

import (
	"net/http"

	"github.com/retwis/retwis/internal/api/apiwire"
	"github.com/retwis/retwis/internal/api/entity"
	"github.com/retwis/retwis/internal/store/familiar"
)

// familiarFollowersEach is how many familiar followers an account is
// answered with.
const familiarFollowersEach = apiwire.MaxAccounts

// FamiliarFollowers is Mastodon's FamiliarFollowers entity.
type FamiliarFollowers struct {
	ID       string           `json:"id"`
	Accounts []entity.Account `json:"accounts"`
}

// familiarFollowers answers GET /api/v1/accounts/familiar_followers?id[]=…:
// for each account asked (at most familiar.MaxAccounts), those of its
// followers the viewer follows, in the order asked.
func (s *Server) familiarFollowers(w http.ResponseWriter, r *http.Request) {
	v, err := apiwire.Params(r)
	if err != nil {
		apiwire.BadRequest(w, r, err)
		return
	}
	uids, err := apiwire.IDs(v, "id")
	if err != nil {
		s.Fail(w, r, err)
		return
	}
	uids = uids[:min(len(uids), familiar.MaxAccounts)]
	found, err := familiar.Followers(r.Context(), s.Store, apiwire.Viewer(r).ID, uids, familiarFollowersEach)
	if err != nil {
		s.Fail(w, r, err)
		return
	}
	accounts, err := s.Accounts(r.Context(), entity.SiteOf(r), uniq(found))
	if err != nil {
		s.Fail(w, r, err)
		return
	}
	byID := make(map[string]entity.Account, len(accounts))
	for _, a := range accounts {
		byID[a.ID] = a
	}
	out := make([]FamiliarFollowers, len(uids))
	for i, uid := range uids {
		out[i] = FamiliarFollowers{ID: entity.ID(uid), Accounts: []entity.Account{}}
		for _, f := range found[i] {
			if a, ok := byID[entity.ID(f)]; ok {
				out[i].Accounts = append(out[i].Accounts, a)
			}
		}
	}
	apiwire.WriteJSON(w, http.StatusOK, out)
}

// uniq returns the ids of lists, each once.
func uniq(lists [][]int64) []int64 {
	seen := map[int64]bool{}
	var out []int64
	for _, l := range lists {
		for _, id := range l {
			if !seen[id] {
				seen[id], out = true, append(out, id)
			}
		}
	}
	return out
}
