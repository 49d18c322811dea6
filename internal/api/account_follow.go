package api

import (
	"context"
	"net/http"
	"net/url"

	"github.com/retwis/retwis"
)

// maxRelationships bounds the accounts one relationships request asks
// about.
const maxRelationships = 100

// follow answers POST /api/v1/accounts/{id}/follow with the
// relationship that results.
func (s *Server) follow(w http.ResponseWriter, r *http.Request) {
	s.changeRelation(w, r, s.store.Follow)
}

// unfollow answers POST /api/v1/accounts/{id}/unfollow.
func (s *Server) unfollow(w http.ResponseWriter, r *http.Request) {
	s.changeRelation(w, r, s.store.Unfollow)
}

// changeRelation applies change (follow, unfollow, block…) from the
// user to the account of the path, and answers with the relationship
// that results.
func (s *Server) changeRelation(w http.ResponseWriter, r *http.Request, change func(ctx context.Context, follower, followee int64) error) {
	sum, ok := s.accountOf(w, r)
	if !ok {
		return
	}
	if _, err := params(r); err != nil { // reblogs, notify, languages, duration: nothing retwis does
		badRequest(w, r, err)
		return
	}
	me := viewer(r).ID
	if err := change(r.Context(), me, sum.User.ID); err != nil {
		s.fail(w, r, err)
		return
	}
	rels, err := s.relations(r.Context(), me, []int64{sum.User.ID})
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, rels[0])
}

// relationships answers GET /api/v1/accounts/relationships?id[]=…: how
// the user relates to each account, in the order asked.
func (s *Server) relationships(w http.ResponseWriter, r *http.Request) {
	v, err := params(r)
	if err != nil {
		badRequest(w, r, err)
		return
	}
	uids, err := idList(v, "id")
	if err != nil {
		s.fail(w, r, err)
		return
	}
	rels, err := s.relations(r.Context(), viewer(r).ID, uids)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, rels)
}

// idList reads an array parameter of ids (at most maxRelationships).
func idList(v url.Values, name string) ([]int64, error) {
	raw := list(v, name)
	if len(raw) > maxRelationships {
		return nil, retwis.Errorf(retwis.Invalid, "At most %d ids at once.", maxRelationships)
	}
	uids := make([]int64, 0, len(raw))
	for _, s := range raw {
		uid, ok := retwis.ParseID(s)
		if !ok {
			return nil, retwis.Errorf(retwis.Invalid, "%s[] must be ids.", name)
		}
		uids = append(uids, uid)
	}
	return uids, nil
}

// relations returns viewer's relationships to uids.
func (s *Server) relations(ctx context.Context, viewer int64, uids []int64) ([]relationship, error) {
	ties, err := s.store.Relations(ctx, viewer, uids)
	if err != nil {
		return nil, err
	}
	out := make([]relationship, len(uids))
	for i, uid := range uids {
		t := ties[i]
		out[i] = relationship{ID: id(uid), Following: t.Following, FollowedBy: t.FollowedBy,
			ShowingReblogs: t.Following, Languages: []string{}, Blocking: t.Blocking, BlockedBy: t.BlockedBy,
			Muting: t.Muting}
	}
	return out, nil
}
