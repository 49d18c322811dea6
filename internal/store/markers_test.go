package store_test

import (
	"testing"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/store"
	"github.com/retwis/retwis/internal/store/interact"
	"github.com/retwis/retwis/internal/store/schema"
	"github.com/retwis/retwis/internal/testkit/must"
)

// twoNotes gives uid two follow notifications, from a at 1000 ms and b
// at 2000 ms, and returns them newest first.
func (f *fixture) twoNotes(t *testing.T, uid int64, a, b retwis.User) []retwis.Notification {
	t.Helper()
	f.Do(t, "ZADD", schema.Notifications(uid), "1000", schema.Note(schema.NoteFollow, a.ID, 0), "2000", schema.Note(schema.NoteFollow, b.ID, 0))
	notes := must.Value(f.St.AllNotifications(f.Ctx, uid))(t)
	if len(notes) != 2 || notes[0].Actor.ID != b.ID {
		t.Fatalf("notifications: %+v", notes)
	}
	return notes
}

// TestNotificationsMarkerIsThePagesReadMarker: saving the API's
// notifications marker moves the pages' unread count, and reading the
// notifications page moves the marker; each save counts a version.
func TestNotificationsMarkerIsThePagesReadMarker(t *testing.T) {
	onRedisAndCluster(t, func(t *testing.T, f *fixture) {
		alice, bob, carol := f.Register(t, "alice"), f.Register(t, "bob"), f.Register(t, "carol")
		if m := must.Value(f.St.Markers(f.Ctx, alice.ID))(t); len(m) != 0 {
			t.Fatalf("markers before any save: %+v", m)
		}
		notes := f.twoNotes(t, alice.ID, bob, carol)
		saved := must.Value(f.St.SaveMarkers(f.Ctx, alice.ID, map[string]int64{store.MarkerNotifications: notes[1].ID}))(t)[store.MarkerNotifications]
		if saved.Version != 1 || saved.LastReadID != notes[1].ID {
			t.Errorf("saved %+v", saved)
		}
		if n := must.Value(f.St.UnreadNotifications(f.Ctx, alice.ID))(t); n != 1 {
			t.Errorf("unread after the marker's save at the older: %d; want 1", n)
		}
		must.Value(f.St.Notifications(f.Ctx, alice.ID))(t) // the page
		m := must.Value(f.St.Markers(f.Ctx, alice.ID))(t)[schema.MarkerNotifications]
		if m.LastReadID != notes[0].ID || m.Version != 2 {
			t.Errorf("marker after the page: %+v; want at %d, version 2", m, notes[0].ID)
		}
		if n := must.Value(f.St.UnreadNotifications(f.Ctx, alice.ID))(t); n != 0 {
			t.Errorf("unread after the page: %d", n)
		}
	})
}

// TestHomeMarker: the home marker is saved and read back in one round
// trip each, its version counting the saves.
func TestHomeMarker(t *testing.T) {
	onRedisAndCluster(t, func(t *testing.T, f *fixture) {
		alice := f.Register(t, "alice")
		for i, id := range []int64{41, 42} {
			before := f.RC.Calls.Load()
			must.Value(f.St.SaveMarkers(f.Ctx, alice.ID, map[string]int64{store.MarkerHome: id}))(t)
			m := must.Value(f.St.Markers(f.Ctx, alice.ID))(t)
			if calls := f.RC.Calls.Load() - before; calls != 2 {
				t.Errorf("save and read: %d round trips; want 2", calls)
			}
			if h := m[schema.MarkerHome]; h.LastReadID != id || h.Version != int64(i+1) || h.UpdatedAt.IsZero() {
				t.Errorf("home marker %+v; want at %d, version %d", h, id, i+1)
			}
			if _, ok := m[schema.MarkerNotifications]; ok {
				t.Error("a notifications marker that was never saved")
			}
		}
	})
}

// TestDismissAndClearNotifications: a dismissed notification is gone
// and dismissing it again is NotFound; clearing leaves none.
func TestDismissAndClearNotifications(t *testing.T) {
	onRedisAndCluster(t, func(t *testing.T, f *fixture) {
		alice, bob, carol := f.Register(t, "alice"), f.Register(t, "bob"), f.Register(t, "carol")
		notes := f.twoNotes(t, alice.ID, bob, carol)
		must.OK(t, f.St.DismissNotification(f.Ctx, alice.ID, notes[1].ID))
		if left := must.Value(f.St.AllNotifications(f.Ctx, alice.ID))(t); len(left) != 1 || left[0].ID != notes[0].ID {
			t.Errorf("left after dismissing the older: %+v", left)
		}
		if err := f.St.DismissNotification(f.Ctx, alice.ID, notes[1].ID); retwis.ErrorKind(err) != retwis.NotFound {
			t.Errorf("dismissing again: %v; want not found", err)
		}
		must.OK(t, f.St.ClearNotifications(f.Ctx, alice.ID))
		if n := must.Value(f.St.UnreadNotifications(f.Ctx, alice.ID))(t); n != 0 {
			t.Errorf("unread after clearing: %d", n)
		}
		if left := must.Value(f.St.AllNotifications(f.Ctx, alice.ID))(t); len(left) != 0 {
			t.Errorf("left after clearing: %+v", left)
		}
	})
}

// TestNotificationPolicy: accept by default; a change keeps the other
// fields; a wrong field or value is refused and writes nothing.
func TestNotificationPolicy(t *testing.T) {
	onRedisAndCluster(t, func(t *testing.T, f *fixture) {
		alice := f.Register(t, "alice")
		p := must.Value(f.St.NotificationPolicy(f.Ctx, alice.ID))(t)
		if len(p) != len(schema.PolicyFields) || p["for_not_following"] != interact.PolicyAccept {
			t.Errorf("default policy: %v", p)
		}
		p = must.Value(f.St.SetNotificationPolicy(f.Ctx, alice.ID, map[string]string{"for_not_following": interact.PolicyDrop}))(t)
		if p["for_not_following"] != interact.PolicyDrop || p["for_new_accounts"] != interact.PolicyAccept {
			t.Errorf("after a change: %v", p)
		}
		for _, bad := range []map[string]string{{"for_not_following": "maybe"}, {"for_everyone": interact.PolicyDrop}} {
			if _, err := f.St.SetNotificationPolicy(f.Ctx, alice.ID, bad); retwis.ErrorKind(err) != retwis.Invalid {
				t.Errorf("%v: %v; want invalid", bad, err)
			}
		}
		if p = must.Value(f.St.NotificationPolicy(f.Ctx, alice.ID))(t); p["for_not_following"] != interact.PolicyDrop {
			t.Errorf("after refused changes: %v", p)
		}
	})
}

// TestHomePageMovesTheHomeMarker: the home page, asked to, moves the
// home marker to the newest post it shows, with one write when that is
// newer than the marker and none otherwise; not asked to, it leaves the
// marker alone.
func TestHomePageMovesTheHomeMarker(t *testing.T) {
	onRedisAndCluster(t, func(t *testing.T, f *fixture) {
		reader, author := f.Register(t, "reader"), f.Register(t, "author")
		must.OK(t, f.St.Follow(f.Ctx, reader.ID, author.ID))
		post := func() int64 {
			p := must.Value(f.St.CreatePost(f.Ctx, author.ID, "news"))(t)
			f.Drain(t)
			return p.ID
		}
		home := func(q store.PageQuery) int64 {
			before := f.RC.Calls.Load()
			must.Value(f.St.HomePage(f.Ctx, reader.ID, q, 0))(t)
			return f.RC.Calls.Load() - before
		}
		first := post()
		home(store.PageQuery{N: 10, MarkHome: true})
		if m := must.Value(f.St.Markers(f.Ctx, reader.ID))(t)[store.MarkerHome]; m.LastReadID != first || m.Version != 1 {
			t.Errorf("home marker after the page: %+v; want at %d, version 1", m, first)
		}
		unmarked := home(store.PageQuery{N: 10})
		if marked := home(store.PageQuery{N: 10, MarkHome: true}); marked != unmarked {
			t.Errorf("a home page with nothing new: %d round trips marking, %d not; want the same", marked, unmarked)
		}
		post()
		home(store.PageQuery{N: 10})
		if m := must.Value(f.St.Markers(f.Ctx, reader.ID))(t)[store.MarkerHome]; m.LastReadID != first {
			t.Errorf("a page not asked to moved the marker: %+v", m)
		}
	})
}

// TestApplyPolicy: a policy that accepts all reads nothing; one that
// filters those not followed, or new accounts, leaves their
// notifications out in one round trip, however many there are.
func TestApplyPolicy(t *testing.T) {
	onRedisAndCluster(t, func(t *testing.T, f *fixture) {
		alice, bob, carol := f.Register(t, "alice"), f.Register(t, "bob"), f.Register(t, "carol")
		notes := f.twoNotes(t, alice.ID, bob, carol)
		must.OK(t, f.St.Follow(f.Ctx, alice.ID, carol.ID))
		apply := func(change map[string]string) ([]retwis.Notification, int64) {
			policy := must.Value(f.St.SetNotificationPolicy(f.Ctx, alice.ID, change))(t)
			before := f.RC.Calls.Load()
			kept := must.Value(f.St.ApplyPolicy(f.Ctx, alice.ID, policy, notes))(t)
			return kept, f.RC.Calls.Load() - before
		}
		if kept, calls := apply(nil); len(kept) != 2 || calls != 0 {
			t.Errorf("accepting all: %d kept in %d round trips; want 2 in 0", len(kept), calls)
		}
		if kept, calls := apply(map[string]string{"for_not_following": interact.PolicyDrop}); len(kept) != 1 || kept[0].Actor.ID != carol.ID || calls != 1 {
			t.Errorf("dropping those not followed: %+v in %d round trips; want carol's in 1", kept, calls)
		}
		if kept, _ := apply(map[string]string{"for_not_following": interact.PolicyAccept, "for_new_accounts": interact.PolicyFilter}); len(kept) != 0 {
			t.Errorf("filtering new accounts: %+v kept", kept)
		}
	})
}
