package api

import (
	"context"
	"net/http"

	"github.com/retwis/retwis/internal/api/apiwire"
	"github.com/retwis/retwis/internal/api/entity"
	"github.com/retwis/retwis/internal/store/notes"
)

// follow answers POST /api/v1/accounts/{id}/follow with the
// relationship that results.
func (s *Server) follow(w http.ResponseWriter, r *http.Request) {
	s.changeRelation(w, r, s.Store.Follow)
}

// unfollow answers POST /api/v1/accounts/{id}/unfollow.
func (s *Server) unfollow(w http.ResponseWriter, r *http.Request) {
	s.changeRelation(w, r, s.Store.Unfollow)
}

// removeFromFollowers answers POST
// /api/v1/accounts/{id}/remove_from_followers: the account stops
// following the user (nothing happens if it did not).
func (s *Server) removeFromFollowers(w http.ResponseWriter, r *http.Request) {
	s.changeRelation(w, r, func(ctx context.Context, me, them int64) error { return s.Store.Unfollow(ctx, them, me) })
}

// changeRelation applies change (follow, unfollow, block…) from the
// user to the account of the path, and answers with the relationship
// that results.
func (s *Server) changeRelation(w http.ResponseWriter, r *http.Request, change func(ctx context.Context, follower, followee int64) error) {
	sum, ok := s.accountOf(w, r)
	if !ok {
		return
	}
	if _, err := apiwire.Params(r); err != nil { // reblogs, notify, languages, duration: nothing retwis does
		apiwire.BadRequest(w, r, err)
		return
	}
	me := apiwire.Viewer(r).ID
	if err := change(r.Context(), me, sum.User.ID); err != nil {
		s.Fail(w, r, err)
		return
	}
	rels, err := s.relations(r.Context(), me, []int64{sum.User.ID})
	if err != nil {
		s.Fail(w, r, err)
		return
	}
	apiwire.WriteJSON(w, http.StatusOK, rels[0])
}

// relationships answers GET /api/v1/accounts/relationships?id[]=…: how
// the user relates to each account, in the order asked.
func (s *Server) relationships(w http.ResponseWriter, r *http.Request) {
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
	rels, err := s.relations(r.Context(), apiwire.Viewer(r).ID, uids)
	if err != nil {
		s.Fail(w, r, err)
		return
	}
	apiwire.WriteJSON(w, http.StatusOK, rels)
}

// relations returns viewer's relationships to uids, with viewer's
// private notes about them.
func (s *Server) relations(ctx context.Context, viewer int64, uids []int64) ([]entity.Relationship, error) {
	ties, err := s.Store.Relations(ctx, viewer, uids)
	if err != nil {
		return nil, err
	}
	notesOf, err := notes.Of(ctx, s.Store, viewer, uids)
	if err != nil {
		return nil, err
	}
	out := make([]entity.Relationship, len(uids))
	for i, uid := range uids {
		t := ties[i]
		out[i] = entity.Relationship{ID: entity.ID(uid), Following: t.Following, FollowedBy: t.FollowedBy,
			ShowingReblogs: t.Following, Languages: []string{}, Blocking: t.Blocking, BlockedBy: t.BlockedBy,
			Muting: t.Muting, Note: notesOf[i]}
	}
	return out, nil
}
