package api

import (
	"net/http"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/api/apiwire"
	"github.com/retwis/retwis/internal/store"
	"github.com/retwis/retwis/internal/store/interact"
)

// unreadNotifications answers GET /api/v1/notifications/unread_count
// (Mastodon 4.3): how many of the viewer's notifications are newer than
// the notifications marker (which is the pages' read marker), at most
// limit (default 100, at most 1000), of the types types[] and
// exclude_types[] ask for and from account_id if given, that the
// notification policy keeps. Without filters, and with a policy that
// accepts all, it is the pages' count of a range of scores; else the
// notifications are read and counted.
func (s *Server) unreadNotifications(w http.ResponseWriter, r *http.Request) {
	v, err := apiwire.Params(r)
	if err != nil {
		apiwire.BadRequest(w, r, err)
		return
	}
	limit, err := apiwire.ReadLimit(v, 100, 1000)
	if err != nil {
		s.Fail(w, r, err)
		return
	}
	from, err := apiwire.OptionalID(v, "account_id")
	if err != nil {
		s.Fail(w, r, err)
		return
	}
	policy, err := s.Store.NotificationPolicy(r.Context(), apiwire.Viewer(r).ID)
	if err != nil {
		s.Fail(w, r, err)
		return
	}
	var n int64
	if from == 0 && len(apiwire.List(v, "types")) == 0 && len(apiwire.List(v, "exclude_types")) == 0 && acceptsAll(policy) {
		n, err = s.Store.UnreadNotifications(r.Context(), apiwire.Viewer(r).ID)
	} else {
		n, err = s.countUnread(r, policy, typesWanted(v), from)
	}
	if err != nil {
		s.Fail(w, r, err)
		return
	}
	apiwire.WriteJSON(w, http.StatusOK, map[string]int64{"count": min(n, int64(limit))})
}

// countUnread counts the viewer's notifications newer than their
// notifications marker that their policy and wanted keep, from the
// account from if not zero.
func (s *Server) countUnread(r *http.Request, policy map[string]string, wanted func(retwis.Notification) bool, from int64) (int64, error) {
	uid := apiwire.Viewer(r).ID
	markers, err := s.Store.Markers(r.Context(), uid)
	if err != nil {
		return 0, err
	}
	all, err := s.allowedNotes(r.Context(), uid, policy)
	if err != nil {
		return 0, err
	}
	read := markers[store.MarkerNotifications].LastReadID / 1000 // the unix ms read up to
	var n int64
	for _, note := range all {
		if note.ID/1000 > read && wanted(note) && (from == 0 || note.Actor.ID == from) {
			n++
		}
	}
	return n, nil
}

// acceptsAll reports whether a notification policy leaves none out.
func acceptsAll(policy map[string]string) bool {
	for _, treatment := range policy {
		if treatment != interact.PolicyAccept {
			return false
		}
	}
	return true
}
