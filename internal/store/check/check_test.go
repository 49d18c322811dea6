package check_test

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/store"
	"github.com/retwis/retwis/internal/store/check"
	"github.com/retwis/retwis/internal/store/deletion"
	"github.com/retwis/retwis/internal/store/delivery"
	"github.com/retwis/retwis/internal/store/posts"
	"github.com/retwis/retwis/internal/store/scheduled"
	"github.com/retwis/retwis/internal/store/schema"
	"github.com/retwis/retwis/internal/store/tagfollows"
	"github.com/retwis/retwis/internal/store/upkeep"
	"github.com/retwis/retwis/internal/testkit/redistest"
	"github.com/retwis/retwis/internal/testkit/storetest"
)

// cluster is the 3-master cluster that this package's tests of
// onRedisAndCluster take turns on.
var cluster redistest.SharedCluster

func TestMain(m *testing.M) { os.Exit(cluster.Run(m)) }

// fixture is a store under test, with a delivery worker.
type fixture struct{ *storetest.Fixture }

func newFixture(t *testing.T) *fixture {
	t.Helper()
	return &fixture{storetest.NewFixture(t, redistest.Start(t).URL, store.Options{}, true)}
}

// onRedisAndCluster runs test on a fixture on one Redis, and on the
// package's cluster.
func onRedisAndCluster(t *testing.T, test func(t *testing.T, f *fixture)) {
	storetest.OnRedisAndCluster(t, &cluster, func(t *testing.T, f *storetest.Fixture) { test(t, &fixture{f}) })
}

// problems returns what rep found as "kind: what ×count".
func problems(rep check.Report) []string { return storetest.Problems(rep) }

// check runs a whole check with a short settling pause.
func (f *fixture) check(t *testing.T, repair bool) check.Report {
	t.Helper()
	return storetest.Check(t, f.St, repair)
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// conversationWorld makes a small network whose every index is right:
// three users who follow each other, with display names, and posts with
// tags, mentions and a reply, all delivered.
func conversationWorld(t *testing.T, f *fixture) (ann, bob, cy retwis.User, tagged retwis.Post) {
	t.Helper()
	ann, bob, cy = f.Register(t, "ann"), f.Register(t, "bob"), f.Register(t, "cy")
	if err := f.St.SetAbout(f.Ctx, ann.ID, "Ann Année", "hi"); err != nil {
		t.Fatal(err)
	}
	for _, pair := range [][2]retwis.User{{ann, bob}, {bob, ann}, {cy, ann}} {
		if err := f.St.Follow(f.Ctx, pair[0].ID, pair[1].ID); err != nil {
			t.Fatal(err)
		}
	}
	tagged = f.Post(t, posts.Draft{Author: ann.ID, Text: "#Café with @bob and @cy"})
	f.Post(t, posts.Draft{Author: bob.ID, Text: "@ann yes", InReplyTo: tagged.ID})
	f.Drain(t)
	return ann, bob, cy, tagged
}

// TestCheckFindsAndRepairs damages every kind of index on purpose, on
// one Redis and on a cluster: a check finds each problem, once, and
// writes nothing; a check with repair fixes them all, and leaves the
// database exactly as it was before the damage; a third check finds
// nothing.
func TestCheckFindsAndRepairs(t *testing.T) {
	t.Parallel()
	onRedisAndCluster(t, func(t *testing.T, f *fixture) {
		ann, bob, cy, tagged := conversationWorld(t, f)
		dee := f.Register(t, "dee")
		if err := f.St.Block(f.Ctx, dee.ID, cy.ID); err != nil {
			t.Fatal(err)
		}
		for _, u := range []retwis.User{ann, dee} {
			if _, err := tagfollows.New(f.St).Follow(f.Ctx, u.ID, "cafe"); err != nil {
				t.Fatal(err)
			}
		}
		later, err := scheduled.New(f.St).Schedule(f.Ctx, scheduled.Post{Author: ann.ID, At: time.Now().Add(time.Hour), Text: "later"})
		if err != nil {
			t.Fatal(err)
		}
		if got := problems(f.check(t, false)); len(got) != 0 {
			t.Fatalf("a sound database has problems: %v", got)
		}
		sound := f.Snapshot(t)
		a, b, c := itoa(ann.ID), itoa(bob.ID), itoa(cy.ID)
		old := itoa(time.Now().Add(-24 * time.Hour).Unix())
		for _, damage := range [][]string{
			{"ZREM", "followers:{" + b + "}", a},                        // ann follows bob, bob does not know
			{"ZREM", "graph:{" + c + "}", "spo:" + c + ":follows:" + a}, // cy follows ann, the graph does not know
			{"ZADD", "followers:{" + c + "}", "1", a},                   // ann does not follow cy
			{"ZADD", "graph:{" + b + "}", "0", "spo:" + b + ":follows:" + c},
			{"HSET", schema.Names("ghost"), "ghost", "999999"},
			{"HSET", "user:{888888}", "username", "orphan", "joined", old}, // a sign-up that crashed
			{"ZREM", schema.People(schema.PeopleOf("annee")), "annee:" + a},
			{"ZADD", schema.People(schema.PeopleOf("zed")), "0", "zed:" + b},
			{"ZREM", schema.Explore, c},
			{"ZADD", schema.Explore, "0", "777777"},
			{"ZREM", schema.Tag("cafe"), itoa(tagged.ID)},
			{"ZREM", "user_posts:{" + a + "}", itoa(tagged.ID)},
			{"ZADD", "mentions:{" + b + "}", "424242", "424242"},
			{"ZADD", "bookmarks:{" + b + "}", "1", "454545"}, // a bookmark and a pin of posts gone
			{"ZADD", "pins:{" + a + "}", "1", "464646"},
			{"LPUSH", "posts:{" + c + "}", "434343"},
			{"ZADD", "followers:{" + a + "}:job:1-1", "1", b},                              // a delivery snapshot of no job
			{"ZREM", "blocked_by:{" + c + "}", itoa(dee.ID)},                               // dee blocks cy, cy's reads do not know
			{"ZADD", "blocked_by:{" + a + "}", "1", b},                                     // bob does not block ann
			{"HSET", schema.PushSubscriptions(ann.ID), "revoked", "{}"},                    // the subscription of a token revoked
			{"ZREM", "tag_followers:{cafe}", a},                                            // ann follows #cafe, delivery does not know
			{"ZADD", "tag_followers:{rust}", "1", b},                                       // bob does not follow #rust
			{"ZREM", schema.Due(schema.DueOf(ann.ID)), schema.DueMember(ann.ID, later.ID)}, // never published
		} {
			f.Do(t, damage...)
		}
		damaged := f.Snapshot(t)
		want := []string{
			"follows: a follow missing from the followee's followers ×1",
			"follows: a follow missing from the graph ×1",
			"followers: a follower who does not follow ×1",
			"graph: a follow in the graph that is not one ×1",
			"blocks: a block missing from the blocked user's blockers ×1",
			"blocks: a blocker who does not block ×1",
			"tag-follows: a follow of a tag missing from its followers ×1",
			"tag-follows: a tag's follower who does not follow it ×1",
			"posts: a post missing from its author's posts ×1",
			"posts: a post missing from the index of a tag, mention, reply or Direct page ×1",
			"post-indexes: an index entry of a post that is gone ×3",
			"scheduled: a scheduled post not due at its time ×1",
			"timelines: a timeline entry of a post that is gone ×1",
			"names: a name of a user who is gone ×1",
			// bob's followers and ann's posts are one short: the facts
			// of their entries; a repair fixes those first
			"users: a directory entry out of date ×2",
			"users: a user missing from the directory ×1",
			"users: a user missing from the people search ×1",
			"users: an account whose sign-up never finished ×1",
			"people: a search entry of a name the user no longer has ×1",
			"directory: a directory entry of a user who is gone ×1",
			"leftovers: a delivery snapshot of no job ×1",
			"push: a push subscription of a token that is gone ×1",
		}
		if got := problems(f.check(t, false)); !slices.Equal(got, want) {
			t.Fatalf("found\n%q\nwant\n%q", got, want)
		}
		if after := f.Snapshot(t); !maps.Equal(after, damaged) {
			t.Fatal("a check without repair changed the database")
		}
		rep := f.check(t, true)
		for _, p := range rep.Problems {
			if p.Repaired != p.Count || len(p.Examples) == 0 {
				t.Fatalf("repaired %d of %d %s: %v", p.Repaired, p.Count, p.What, p.Examples)
			}
		}
		if got := problems(f.check(t, false)); len(got) != 0 {
			t.Fatalf("after repair: %v", got)
		}
		if after := f.Snapshot(t); !maps.Equal(after, sound) {
			for k := range maps.Keys(after) {
				if after[k] != sound[k] {
					t.Errorf("%s differs from before the damage", k)
				}
			}
			for k := range maps.Keys(sound) {
				if _, ok := after[k]; !ok {
					t.Errorf("%s is gone", k)
				}
			}
		}
	})
}

// TestCheckResumes checks with a small budget: each call walks about
// that many keys and goes on where the last stopped, until it is done;
// then the progress is forgotten.
func TestCheckResumes(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	conversationWorld(t, f)
	f.Do(t, "ZADD", "mentions:{1}", "525252", "525252")
	calls, total := 0, int64(0)
	var problemsSeen int64
	for {
		calls++
		rep, err := check.Run(f.Ctx, f.St, check.Options{Scope: "test", Budget: 3, Settle: time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		total += rep.Keys
		for _, p := range rep.Problems {
			problemsSeen += p.Count
		}
		if rep.Done {
			break
		}
		if calls > 200 {
			t.Fatal("the check does not get to the end")
		}
	}
	whole := f.check(t, false)
	if calls < 5 || total < whole.Keys || problemsSeen != 1 {
		t.Fatalf("%d calls walked %d keys (a whole check %d) and saw %d problems", calls, total, whole.Keys, problemsSeen)
	}
	if keys := f.Strs(t, "KEYS", "check:test:*"); len(keys) != 0 {
		t.Fatalf("progress left behind: %v", keys)
	}
}

// TestCheckLive checks and repairs over and over while users follow,
// unfollow, post and delete (each writer its own user, so that the
// writes race only with the check): once they stop, a check finds the
// database sound, the repairs having taken no write under way for
// damage. Only the directory's entries may lag: two writers refresh the
// entry of a user they both follow, and the last to write wins, which
// the background check mends.
func TestCheckLive(t *testing.T) {
	t.Parallel()
	onRedisAndCluster(t, checkLive)
}

func checkLive(t *testing.T, f *fixture) {
	users := make([]retwis.User, 6)
	for i := range users {
		users[i] = f.Register(t, fmt.Sprint("live", i))
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := range 3 {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(w), 9))
			me := users[w]
			var mine []int64
			for {
				select {
				case <-stop:
					return
				default:
				}
				other := users[3+rng.IntN(3)]
				var err error
				switch rng.IntN(4) {
				case 0:
					err = f.St.Follow(f.Ctx, me.ID, other.ID)
				case 1:
					err = f.St.Unfollow(f.Ctx, me.ID, other.ID)
				case 2:
					var p retwis.Post
					if p, err = f.St.CreatePost(f.Ctx, me.ID, fmt.Sprintf("#live @%s", other.Username)); err == nil {
						mine = append(mine, p.ID)
					}
				case 3:
					if len(mine) > 0 {
						err, mine = f.St.DeletePost(f.Ctx, me.ID, mine[0]), mine[1:]
					}
				}
				if err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	for end := time.Now().Add(1500 * time.Millisecond); time.Now().Before(end); {
		if _, err := check.Run(f.Ctx, f.St, check.Options{Repair: true, Scope: "live", Restart: true, Settle: 30 * time.Millisecond}); err != nil {
			t.Fatal(err)
		}
	}
	close(stop)
	wg.Wait()
	f.Drain(t)
	for _, p := range f.check(t, false).Problems {
		if p.What != "a directory entry out of date" {
			t.Errorf("after the writes: %s: %s ×%d %v", p.Kind, p.What, p.Count, p.Examples)
		}
	}
}

// TestReadsRepair reads pages that hold ids of posts that are gone: each
// page skips them and takes them out of the index or timeline it read.
func TestReadsRepair(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ann, bob, _, _ := conversationWorld(t, f)
	a := itoa(ann.ID)
	f.Do(t, "LPUSH", "posts:{"+a+"}", "434343")
	f.Do(t, "ZADD", "mentions:{"+itoa(bob.ID)+"}", "434344", "434344")
	f.Do(t, "ZADD", schema.Tag("cafe"), "434345", "434345")
	f.Do(t, "ZADD", "user_posts:{"+a+"}", "434346", "434346")
	f.Do(t, "LPUSH", "timeline", "434347")
	if _, _, err := f.St.HomeTimeline(f.Ctx, ann.ID, retwis.Cursor{}, 10); err != nil {
		t.Fatal(err)
	}
	if _, err := f.St.Mentions(f.Ctx, bob.ID, retwis.Cursor{}, 10); err != nil {
		t.Fatal(err)
	}
	if _, err := f.St.TagPosts(f.Ctx, 0, "CAFÉ", retwis.Cursor{}, 10); err != nil {
		t.Fatal(err)
	}
	if _, err := f.St.Profile(f.Ctx, 0, ann, retwis.Cursor{}, 10); err != nil {
		t.Fatal(err)
	}
	if _, err := f.St.GlobalTimeline(f.Ctx, 0, retwis.Cursor{Before: 434348}, 10); err != nil {
		t.Fatal(err)
	}
	for _, gone := range [][]string{
		{"LPOS", "posts:{" + a + "}", "434343"},
		{"ZSCORE", "mentions:{" + itoa(bob.ID) + "}", "434344"},
		{"ZSCORE", schema.Tag("cafe"), "434345"},
		{"ZSCORE", "user_posts:{" + a + "}", "434346"},
		{"LPOS", "timeline", "434347"},
	} {
		if v := f.Do(t, gone...); v != "" {
			t.Errorf("%v = %q: the id of a post that is gone stays", gone, v)
		}
	}
	if got := problems(f.check(t, false)); len(got) != 0 {
		t.Fatalf("after the reads: %v", got)
	}
}

// TestMaintenanceChecks damages an index: rounds of maintenance, each
// checking a kind of index in turn (Round), find and repair it.
func TestMaintenanceChecks(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ann, bob, _, _ := conversationWorld(t, f)
	f.Do(t, "ZREM", "followers:{"+itoa(bob.ID)+"}", itoa(ann.ID))
	repaired := 0
	for range len(check.Kinds()) { // as the maintenance loop of retwis serve does
		rep, err := upkeep.Round(f.Ctx, f.St, delivery.New(f.St, delivery.Options{Consumer: "upkeep", ClaimIdle: time.Hour}), deletion.New(f.St))
		if err != nil {
			t.Fatal(err)
		}
		repaired += rep.Repaired
	}
	if repaired < 1 || f.Do(t, "ZSCORE", "followers:{"+itoa(bob.ID)+"}", itoa(ann.ID)) == "" {
		t.Fatalf("maintenance repaired %d problems, and the follow is still missing", repaired)
	}
	if got := f.Strs(t, "LRANGE", "check:rotation", "0", "-1"); !slices.Equal(got, check.Kinds()) {
		t.Fatalf("after a whole rotation the kinds are %v", got)
	}
}
