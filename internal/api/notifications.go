package api

import (
	"context"
	"net/http"
	"net/url"
	"slices"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/middleware"
)

// notificationType is a notification's type as Mastodon names it: a
// reply is a mention, as in Mastodon.
func notificationType(k retwis.NotificationKind) string {
	switch k {
	case retwis.NotificationFollow, retwis.NotificationUpdate, retwis.NotificationFavourite, retwis.NotificationReblog:
		return k.String()
	}
	return "mention"
}

// notifications answers GET /api/v1/notifications: the user's
// notifications, newest first, paged by id, filtered by types[] and
// exclude_types[] (follow, mention, update, favourite).
func (s *Server) notifications(w http.ResponseWriter, r *http.Request) {
	v, err := params(r)
	if err != nil {
		badRequest(w, r, err)
		return
	}
	p, err := readPage(v, 40, 80)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	all, err := s.store.AllNotifications(r.Context(), viewer(r).ID)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	notes, older := pickNotes(all, v, p)
	out, err := s.notificationEntities(r.Context(), newSite(r), notes)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if len(notes) > 0 {
		link(w, r, notes[0].ID, notes[len(notes)-1].ID, older)
	}
	writeJSON(w, http.StatusOK, out)
}

// pickNotes returns the page of all (newest first) that the parameters
// ask for, and whether older ones match too.
func pickNotes(all []retwis.Notification, v url.Values, p pageParams) ([]retwis.Notification, bool) {
	types, exclude := list(v, "types"), list(v, "exclude_types")
	var match []retwis.Notification
	for _, n := range all {
		t := notificationType(n.Kind)
		if len(types) > 0 && !slices.Contains(types, t) || slices.Contains(exclude, t) {
			continue
		}
		if p.cursor.Before > 0 && n.ID >= p.cursor.Before || n.ID <= max(p.cursor.After, p.since) {
			continue
		}
		match = append(match, n)
	}
	if p.cursor.After > 0 && len(match) > p.limit { // min_id: the page just above it
		return match[len(match)-p.limit:], true
	}
	if len(match) > p.limit {
		return match[:p.limit], true
	}
	return match, false
}

// notification answers GET /api/v1/notifications/{id}.
func (s *Server) notification(w http.ResponseWriter, r *http.Request) {
	want, ok := retwis.ParseID(r.PathValue("id"))
	if !ok {
		notFound(w, r)
		return
	}
	all, err := s.store.AllNotifications(r.Context(), viewer(r).ID)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	i := slices.IndexFunc(all, func(n retwis.Notification) bool { return n.ID == want })
	if i < 0 {
		notFound(w, r)
		return
	}
	out, err := s.notificationEntities(r.Context(), newSite(r), all[i:i+1])
	if err != nil || len(out) == 0 {
		if err == nil {
			notFound(w, r)
		} else {
			s.fail(w, r, err)
		}
		return
	}
	writeJSON(w, http.StatusOK, out[0])
}

// notificationEntities returns the entities of notes: their actors and
// posts read in a constant number of round trips. A notification of a
// post deleted since is left out.
func (s *Server) notificationEntities(ctx context.Context, st site, notes []retwis.Notification) ([]notification, error) {
	var actors, pids []int64
	for _, n := range notes {
		actors = append(actors, n.Actor.ID)
		if n.Post > 0 {
			pids = append(pids, n.Post)
		}
	}
	posts, err := s.store.Posts(ctx, middleware.ViewerID(ctx), pids)
	if err != nil {
		return nil, err
	}
	sums, err := s.store.Summaries(ctx, actors)
	if err != nil {
		return nil, err
	}
	statuses, err := s.statuses(ctx, st, posts)
	if err != nil {
		return nil, err
	}
	byUser := map[int64]retwis.Summary{}
	for _, sum := range sums {
		byUser[sum.User.ID] = sum
	}
	byPost := map[string]*status{}
	for i := range statuses {
		byPost[statuses[i].ID] = &statuses[i]
	}
	out := make([]notification, 0, len(notes))
	for _, n := range notes {
		actor, ok := byUser[n.Actor.ID]
		if !ok {
			continue
		}
		e := notification{ID: id(n.ID), Type: notificationType(n.Kind), CreatedAt: stamp(n.Time), Account: st.account(actor)}
		if n.Post > 0 {
			if e.Status = byPost[id(n.Post)]; e.Status == nil {
				continue
			}
		}
		out = append(out, e)
	}
	return out, nil
}
