package store_test

import (
	"strings"
	"testing"
	"time"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/redisconn"
	"github.com/retwis/retwis/internal/store"
	"github.com/retwis/retwis/internal/store/posts"
	"github.com/retwis/retwis/internal/store/schema"
	"github.com/retwis/retwis/internal/testkit/redistest"
	"github.com/retwis/retwis/internal/testkit/storetest"
)

// TestActivity: sign-ups, logins (a session or a token made) and posts
// are counted in this week's activity, each active user once, on Redis
// and the cluster; the weeks before are there with zeros.
// (The week's keys are those of now: a test run across Monday 00:00 UTC
// would see its counts split.)
func TestActivity(t *testing.T) {
	t.Parallel()
	onRedisAndCluster(t, func(t *testing.T, f *fixture) {
		alice, bob := f.Register(t, "alice"), f.Register(t, "bob")
		// Their sign-ups made them active; forgotten, so that the login
		// and the token below are what makes them active again.
		f.Do(t, "DEL", schema.ActivityUsers(schema.Week(time.Now())))
		if _, _, err := f.St.Login(f.Ctx, "alice", "password1"); err != nil {
			t.Fatal(err)
		}
		if _, err := f.St.CreateToken(f.Ctx, bob.ID, "", "cli", retwis.Scopes{"read"}); err != nil {
			t.Fatal(err)
		}
		f.Post(t, posts.Draft{Author: alice.ID, Text: "one"})
		f.Post(t, posts.Draft{Author: alice.ID, Text: "two"})
		weeks, err := f.St.Activity(f.Ctx, 12)
		if err != nil || len(weeks) != 12 {
			t.Fatalf("activity = %v, %v", weeks, err)
		}
		now := weeks[0]
		if now.Week.Weekday() != time.Monday || time.Since(now.Week) > 7*24*time.Hour || now.Week.After(time.Now()) {
			t.Errorf("this week begins %v: not the Monday before now", now.Week)
		}
		if now.Statuses != 2 || now.Logins != 2 || now.Registrations != 2 {
			t.Errorf("this week = %+v; want 2 posts, 2 users logged in, 2 sign-ups", now)
		}
		if last := weeks[11]; last.Statuses+last.Logins+last.Registrations != 0 || !last.Week.Equal(now.Week.AddDate(0, 0, -77)) {
			t.Errorf("11 weeks ago = %+v; want nothing, 77 days before this week", last)
		}
		u, err := f.St.Usage(f.Ctx)
		if err != nil || u.ActiveMonth != 2 || u.ActiveHalfyear != 2 || u.Statuses != 2 {
			t.Errorf("usage = %+v, %v; want 2 active users, 2 posts", u, err)
		}
	})
}

// TestRules: the operator's rules come back in the order they were
// added, with their hints; one removed is gone; a rule without text, or
// too long, is refused, and so is the removal of one that is not.
func TestRules(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	if rules, err := f.St.Rules(f.Ctx); err != nil || len(rules) != 0 {
		t.Fatalf("rules at first = %v, %v; want none", rules, err)
	}
	for _, r := range [][2]string{{"Be kind", ""}, {"No spam", "Nor ads."}, {"No bots", ""}} {
		if _, err := f.St.AddRule(f.Ctx, r[0], r[1]); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.St.RemoveRule(f.Ctx, 3); err != nil {
		t.Fatal(err)
	}
	rules, err := f.St.Rules(f.Ctx)
	if err != nil || len(rules) != 2 || rules[0].Text != "Be kind" || rules[1].ID != 2 || rules[1].Hint != "Nor ads." {
		t.Errorf("rules = %+v, %v; want Be kind, then No spam (2) with its hint", rules, err)
	}
	_, err = f.St.AddRule(f.Ctx, "  ", "")
	storetest.WantKind(t, err, retwis.Invalid)
	_, err = f.St.AddRule(f.Ctx, strings.Repeat("x", 301), "")
	storetest.WantKind(t, err, retwis.Invalid)
	storetest.WantKind(t, f.St.RemoveRule(f.Ctx, 3), retwis.NotFound)
}

// TestActivityFailureKeepsReplication: when the activity's count fails
// (here its commands are refused) on a store that waits for a replica,
// logins and posts still succeed, and the replica has them when they
// are acknowledged.
func TestActivityFailureKeepsReplication(t *testing.T) {
	t.Parallel()
	master, replica := redistest.Replicated(t)
	f := newFixtureWith(t, master.URL, store.Options{}, false)
	author := f.Register(t, "author")
	c, err := redisconn.Dial(f.limitedURL(t, master.URL, "pfadd"))
	if err != nil {
		t.Fatal(err)
	}
	limited, err := store.New(c, store.Options{Password: storetest.Cheap, Log: quiet, WaitReplicas: 1, WaitTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer limited.Close()
	_, session, err := limited.Login(f.Ctx, "author", "password1")
	if err != nil {
		t.Fatalf("login without the activity's count: %v", err)
	}
	p, err := limited.CreatePost(f.Ctx, author.ID, "counted or not")
	if err != nil {
		t.Fatalf("post without the activity's count: %v", err)
	}
	onReplica := storetest.Open(t, replica.URL, store.Options{})
	if got, err := onReplica.Post(f.Ctx, 0, p.ID); err != nil || got.AuthorID != author.ID {
		t.Errorf("the replica has %+v, %v; want the post, acknowledged", got, err)
	}
	if u, err := onReplica.Authenticate(f.Ctx, session); err != nil || u.ID != author.ID {
		t.Errorf("the replica authenticates %+v, %v; want the session, acknowledged", u, err)
	}
}
