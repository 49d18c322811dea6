package suggestions

import (
	"net/http"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/api/apiwire"
	"github.com/retwis/retwis/internal/api/entity"
)

// Suggestion is Mastodon's Suggestion entity (v2): an account with why
// it is suggested.
type Suggestion struct {
	Source  string         `json:"source"`  // the deprecated reason: past_interactions for friends of friends
	Sources []string       `json:"sources"` // friends_of_friends
	Account entity.Account `json:"account"`
}

// suggestions answers GET /api/v1/suggestions (v2 false: the accounts)
// and GET /api/v2/suggestions (Suggestion entities): the accounts the
// viewer's follows follow most, that the viewer neither follows nor
// dismissed (limit 40, at most 80).
func (s *Server) suggestions(v2 bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		limit, err := apiwire.ReadLimit(r.URL.Query(), apiwire.MaxLimit, apiwire.MaxAccounts)
		if err != nil {
			s.Fail(w, r, err)
			return
		}
		found, err := s.Store.WhoToFollow(r.Context(), apiwire.Viewer(r).ID, limit)
		if err != nil {
			s.Fail(w, r, err)
			return
		}
		uids := make([]int64, len(found))
		for i, f := range found {
			uids[i] = f.User.ID
		}
		accounts, err := s.Accounts(r.Context(), entity.SiteOf(r), uids)
		if err != nil {
			s.Fail(w, r, err)
			return
		}
		if !v2 {
			apiwire.WriteJSON(w, http.StatusOK, accounts)
			return
		}
		out := make([]Suggestion, len(accounts))
		for i, a := range accounts {
			out[i] = Suggestion{Source: "past_interactions", Sources: []string{"friends_of_friends"}, Account: a}
		}
		apiwire.WriteJSON(w, http.StatusOK, out)
	}
}

// dismiss answers DELETE /api/v1/suggestions/{account_id}: the account
// is never suggested to the viewer again, here or on the pages; an
// empty object.
func (s *Server) dismiss(w http.ResponseWriter, r *http.Request) {
	uid, ok := retwis.ParseID(r.PathValue("account_id"))
	if !ok {
		s.Fail(w, r, retwis.Errorf(retwis.NotFound, "There is no such account."))
		return
	}
	if err := s.Store.DismissSuggestion(r.Context(), apiwire.Viewer(r).ID, uid); err != nil {
		s.Fail(w, r, err)
		return
	}
	apiwire.EmptyObject(w, r)
}
