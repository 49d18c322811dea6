package announcements_test

import (
	"os"
	"slices"
	"testing"
	"time"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/store"
	"github.com/retwis/retwis/internal/store/announcements"
	"github.com/retwis/retwis/internal/testkit/must"
	"github.com/retwis/retwis/internal/testkit/redistest"
	"github.com/retwis/retwis/internal/testkit/storetest"
)

var cluster redistest.SharedCluster

func TestMain(m *testing.M) { os.Exit(cluster.Run(m)) }

// TestAnnouncements: the operator announces, users see the active ones,
// dismiss them and react to them, each seeing their own marks and the
// counts of all; removing one takes its counts with it, and a deleted
// user's reactions are taken back.
func TestAnnouncements(t *testing.T) {
	t.Parallel()
	storetest.OnRedisAndCluster(t, &cluster, func(t *testing.T, f *storetest.Fixture) {
		an := announcements.New(f.St)
		alice, bob := f.Register(t, "alice"), f.Register(t, "bob")
		now := time.Now()
		_, err := an.Announce(f.Ctx, "  ", time.Time{}, time.Time{})
		storetest.WantKind(t, err, retwis.Invalid)
		_, err = an.Announce(f.Ctx, "backwards", now, now.Add(-time.Hour))
		storetest.WantKind(t, err, retwis.Invalid)
		a := must.Value(an.Announce(f.Ctx, "Maintenance tonight, see https://example.com #ops", time.Time{}, time.Time{}))(t)
		must.Value(an.Announce(f.Ctx, "later", now.Add(time.Hour), time.Time{}))(t)
		must.Value(an.Announce(f.Ctx, "over", now.Add(-2*time.Hour), now.Add(-time.Hour)))(t)
		shown := must.Value(an.Active(f.Ctx, alice.ID, now))(t)
		if len(shown) != 1 || shown[0].ID != a.ID || shown[0].Read || len(shown[0].Reactions) != 0 {
			t.Fatalf("active: %+v", shown)
		}
		must.OK(t, an.React(f.Ctx, alice.ID, a.ID, "👍"))
		must.OK(t, an.React(f.Ctx, alice.ID, a.ID, "👍")) // once
		must.OK(t, an.React(f.Ctx, bob.ID, a.ID, "👍"))
		must.OK(t, an.React(f.Ctx, bob.ID, a.ID, "🏳️‍🌈"))
		storetest.WantKind(t, an.React(f.Ctx, bob.ID, a.ID, "no"), retwis.Invalid)
		storetest.WantKind(t, an.React(f.Ctx, bob.ID, a.ID+100, "👍"), retwis.NotFound)
		must.OK(t, an.Dismiss(f.Ctx, alice.ID, a.ID))
		storetest.WantKind(t, an.Dismiss(f.Ctx, alice.ID, a.ID+100), retwis.NotFound)
		shown = must.Value(an.Active(f.Ctx, alice.ID, now))(t)
		want := []announcements.Reaction{{Name: "👍", Count: 2, Me: true}, {Name: "🏳️‍🌈", Count: 1}}
		if len(shown) != 1 || !shown[0].Read || !slices.Equal(shown[0].Reactions, want) {
			t.Errorf("alice sees %+v, want read with %+v", shown, want)
		}
		if unread := must.Value(an.Unread(f.Ctx, alice.ID, now))(t); len(unread) != 0 {
			t.Errorf("alice's unread after dismissing: %+v", unread)
		}
		if unread := must.Value(an.Unread(f.Ctx, bob.ID, now))(t); len(unread) != 1 {
			t.Errorf("bob's unread: %+v", unread)
		}
		must.OK(t, an.Unreact(f.Ctx, alice.ID, a.ID, "👍"))
		must.OK(t, an.Forget(f.Ctx, bob.ID))
		if shown = must.Value(an.Active(f.Ctx, alice.ID, now))(t); len(shown[0].Reactions) != 0 {
			t.Errorf("reactions left: %+v", shown[0].Reactions)
		}
		must.OK(t, an.React(f.Ctx, bob.ID, a.ID, "🎉"))
		must.OK(t, an.Remove(f.Ctx, a.ID))
		storetest.WantKind(t, an.Remove(f.Ctx, a.ID), retwis.NotFound)
		if n := f.Do(t, "HLEN", "instance:{announcements}:reactions"); n != "0" {
			t.Errorf("%s reactions' counts left", n)
		}
		if all := must.Value(an.All(f.Ctx))(t); len(all) != 2 {
			t.Errorf("all after removing one: %+v", all)
		}
	})
}

// TestReactionsBounded refuses a ninth different emoji.
func TestReactionsBounded(t *testing.T) {
	t.Parallel()
	f := storetest.NewFixture(t, redistest.Start(t).URL, store.Options{}, false)
	an := announcements.New(f.St)
	u := f.Register(t, "carol")
	a := must.Value(an.Announce(f.Ctx, "react", time.Time{}, time.Time{}))(t)
	for _, e := range []string{"😀", "😁", "😂", "🤣", "😃", "😄", "😅", "😆"} {
		must.OK(t, an.React(f.Ctx, u.ID, a.ID, e))
	}
	storetest.WantKind(t, an.React(f.Ctx, u.ID, a.ID, "😇"), retwis.Invalid)
	must.OK(t, an.React(f.Ctx, u.ID, a.ID, "😀")) // one of the eight again
}

// TestValidEmoji accepts one emoji grapheme and nothing else.
func TestValidEmoji(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]bool{
		"👍": true, "👍🏽": true, "❤️": true, "🇫🇷": true, "1️⃣": true, "#⃣": true, "👩‍👩‍👧": true, "🏳️‍🌈": true, "🏴󠁧󠁢󠁳󠁣󠁴󠁿": true,
		"": false, "a": false, "👍👍": false, "🇫": false, "1": false, "👍‍": false, "‍👍": false, ":blobcat:": false, "👍 ": false,
	} {
		if got := announcements.ValidEmoji(s); got != want {
			t.Errorf("ValidEmoji(%q) = %v, want %v", s, got, want)
		}
	}
}
