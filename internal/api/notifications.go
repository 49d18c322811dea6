package api

import (
	"context"
	"net/http"
	"net/url"
	"slices"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/api/apiwire"
	"github.com/retwis/retwis/internal/api/entity"
)

// notifications answers GET /api/v1/notifications: the user's
// notifications, newest first, paged by id, filtered by types[] and
// exclude_types[] (follow, mention, update, favourite, reblog), and by
// their notification policy (store.Store.ApplyPolicy).
func (s *Server) notifications(w http.ResponseWriter, r *http.Request) {
	v, err := apiwire.Params(r)
	if err != nil {
		apiwire.BadRequest(w, r, err)
		return
	}
	p, err := apiwire.ReadPage(v, 40, 80)
	if err != nil {
		s.Fail(w, r, err)
		return
	}
	all, err := s.allowedNotes(r.Context(), apiwire.Viewer(r).ID, nil)
	if err != nil {
		s.Fail(w, r, err)
		return
	}
	notes, older := pickNotes(all, v, p)
	out, err := s.Notifications(r.Context(), entity.SiteOf(r), notes)
	if err != nil {
		s.Fail(w, r, err)
		return
	}
	if len(notes) > 0 {
		apiwire.Link(w, r, notes[0].ID, notes[len(notes)-1].ID, older)
	}
	apiwire.WriteJSON(w, http.StatusOK, out)
}

// allowedNotes returns uid's notifications, newest first, but those
// their notification policy leaves out (given, or read if nil).
func (s *Server) allowedNotes(ctx context.Context, uid int64, policy map[string]string) ([]retwis.Notification, error) {
	var err error
	if policy == nil {
		if policy, err = s.Store.NotificationPolicy(ctx, uid); err != nil {
			return nil, err
		}
	}
	all, err := s.Store.AllNotifications(ctx, uid)
	if err != nil {
		return nil, err
	}
	return s.Store.ApplyPolicy(ctx, uid, policy, all)
}

// pickNotes returns the page of all (newest first) that the parameters
// ask for, and whether older ones match too.
func pickNotes(all []retwis.Notification, v url.Values, p apiwire.Page) ([]retwis.Notification, bool) {
	wanted := typesWanted(v)
	var match []retwis.Notification
	for _, n := range all {
		if !wanted(n) {
			continue
		}
		if p.Cursor.Before > 0 && n.ID >= p.Cursor.Before || n.ID <= max(p.Cursor.After, p.Since) {
			continue
		}
		match = append(match, n)
	}
	if p.Cursor.After > 0 && len(match) > p.Limit { // min_id: the page just above it
		return match[len(match)-p.Limit:], true
	}
	if len(match) > p.Limit {
		return match[:p.Limit], true
	}
	return match, false
}

// typesWanted returns whether a notification is of the types the
// parameters types[] and exclude_types[] ask for (any when neither is
// given).
func typesWanted(v url.Values) func(retwis.Notification) bool {
	types, exclude := apiwire.List(v, "types"), apiwire.List(v, "exclude_types")
	return func(n retwis.Notification) bool {
		t := entity.NotificationType(n.Kind)
		return (len(types) == 0 || slices.Contains(types, t)) && !slices.Contains(exclude, t)
	}
}

// notification answers GET /api/v1/notifications/{id}.
func (s *Server) notification(w http.ResponseWriter, r *http.Request) {
	want, ok := retwis.ParseID(r.PathValue("id"))
	if !ok {
		apiwire.NotFound(w, r)
		return
	}
	all, err := s.Store.AllNotifications(r.Context(), apiwire.Viewer(r).ID)
	if err != nil {
		s.Fail(w, r, err)
		return
	}
	i := slices.IndexFunc(all, func(n retwis.Notification) bool { return n.ID == want })
	if i < 0 {
		apiwire.NotFound(w, r)
		return
	}
	out, err := s.Notifications(r.Context(), entity.SiteOf(r), all[i:i+1])
	if err != nil || len(out) == 0 {
		if err == nil {
			apiwire.NotFound(w, r)
		} else {
			s.Fail(w, r, err)
		}
		return
	}
	apiwire.WriteJSON(w, http.StatusOK, out[0])
}
