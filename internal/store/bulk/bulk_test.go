package bulk_test

import (
	"bufio"
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/dataset"
	"github.com/retwis/retwis/internal/resp"
	"github.com/retwis/retwis/internal/store"
	"github.com/retwis/retwis/internal/store/bulk"
	"github.com/retwis/retwis/internal/store/deletion"
	"github.com/retwis/retwis/internal/store/delivery"
	"github.com/retwis/retwis/internal/store/schema"
	"github.com/retwis/retwis/internal/store/upkeep"
	"github.com/retwis/retwis/internal/testkit/must"
	"github.com/retwis/retwis/internal/testkit/redistest"
	"github.com/retwis/retwis/internal/testkit/storetest"
	"github.com/retwis/retwis/load"
)

// fixture is a store under test (storetest.Fixture), its database
// migrated, with no delivery worker: the tests run their own.
type fixture struct{ *storetest.Fixture }

// newFixture returns a fixture whose store, on the Redis at url, has
// opts (with storetest's defaults).
func newFixture(t *testing.T, url string, opts store.Options) *fixture {
	t.Helper()
	return &fixture{storetest.NewFixture(t, url, opts, false)}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// network is the small synthetic network the bulk tests write: home
// timeline lists of 100 entries and up to 1,000 more in their archives.
func network(hash string) dataset.GenerateOptions {
	return dataset.GenerateOptions{
		NetworkOptions: dataset.NetworkOptions{Users: 300, Posts: 6000, AvgFollows: 10, Span: time.Hour,
			Until: time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC), Seed: 7},
		PasswordHash: hash, Timelines: dataset.Timelines{HomeCap: 100, Archive: 1000},
	}
}

// bulkOptions are the options of a store serving network.
var bulkOptions = store.Options{HomeCap: 100}

// TestBulkWriterLive writes a synthetic network straight into a database
// and checks that it is consistent: a user's home timeline, through its
// list and its archive, is exactly the newest posts of the user and
// those they follow (1,100 of them when there are more) and the boosts
// that reach them, which home_boosts records, logins work,
// popularity is skewed, the global timeline holds public posts only
// (one in ten is unlisted or followers-only), and the check agrees.
func TestBulkWriterLive(t *testing.T) {
	t.Parallel()
	f := newFixture(t, redistest.Start(t).URL, bulkOptions)
	hash := dataset.SeededHash("seeded pw", 7)
	stats, err := dataset.Generate(f.Ctx, bulk.NewLiveWriter(f.Ctx, f.St.DB), network(hash))
	if err != nil {
		t.Fatal(err)
	}
	if stats.Users != 300 || stats.Posts != 6000 || stats.Follows < 1500 || stats.Follows > 4500 {
		t.Fatalf("stats = %+v", stats)
	}
	if avg := stats.Follows / stats.Users; stats.MaxFollowers < 8*avg {
		t.Fatalf("the most followed user has %d followers, the average %d: not a power law", stats.MaxFollowers, avg)
	}
	if empty, err := f.St.IsEmpty(f.Ctx); err != nil || empty {
		t.Fatalf("IsEmpty after writing = %v, %v", empty, err)
	}
	if stats.ArchivedEntries == 0 {
		t.Fatal("nothing was archived")
	}
	homeBoosts := 0
	for _, uid := range []int64{1, 150, 300} {
		got := storetest.PageAll(t, f.Home(t, uid, 50), nil)
		want := f.newestOfFollowed(t, uid)
		want = want[:min(len(want), 1100)]
		if !slices.Equal(got, want) {
			t.Fatalf("user %d: home timeline has %d posts; want the %d newest of the authors'", uid, len(got), len(want))
		}
		var boosted []string // the posts of the newest 100 boosts on it, as home_boosts records them
		for _, id := range want {
			if of := f.Do(t, "HGET", "post:"+itoa(id), "reblog_of"); of != "" && len(boosted) < 100 {
				boosted = append(boosted, of)
			}
		}
		if got := f.Strs(t, "ZREVRANGE", "home_boosts:{"+itoa(uid)+"}", "0", "-1"); !slices.Equal(got, boosted) {
			t.Fatalf("user %d: home_boosts holds %v; want the posts of the boosts on the home timeline, %v", uid, got, boosted)
		}
		homeBoosts += len(boosted)
	}
	if homeBoosts == 0 {
		t.Fatal("no boost reached the home timelines looked at")
	}
	if _, _, err := f.St.Login(f.Ctx, "user42", "seeded pw"); err != nil {
		t.Fatalf("a generated user cannot log in: %v", err)
	}
	if p, err := f.St.GlobalTimeline(f.Ctx, 0, retwis.Cursor{}, 10); err != nil || p.Posts[0].ID != 6000 {
		t.Fatalf("global timeline: %v", err)
	}
	if n := f.Do(t, "LLEN", "timeline"); n != "1000" {
		t.Fatalf("the global timeline holds %s posts; want 1000", n)
	}
	for _, id := range f.Strs(t, "LRANGE", "timeline", "0", "-1") {
		if n, _ := strconv.Atoi(id); n%20 == 7 || n%20 == 13 {
			t.Fatalf("the global timeline holds post %s, which is not public", id)
		}
	}
	if _, err := f.St.Post(f.Ctx, 0, 13); retwis.ErrorKind(err) != retwis.NotFound {
		t.Errorf("a visitor reads post 13, followers-only: %v; want not found", err)
	}
	for _, pr := range f.Check(t, false).Problems {
		if pr.Kind != "users" { // the directory's counts of posts this week: a dataset's week is not the clock's
			t.Errorf("the check finds %s: %s ×%d", pr.Kind, pr.What, pr.Count)
		}
	}
}

// TestBulkInteractions writes a synthetic network and reads its
// favourites and boosts as a server shows them: a user's favourites page
// lists the posts they favourited, each marked and counted; a booster
// sees their mark on the post they boosted, counted; a home timeline
// that got a boost shows the post boosted; authors are notified of
// both. The check finds nothing wrong with them (TestBulkWriterLive),
// and finds a count made wrong on purpose.
func TestBulkInteractions(t *testing.T) {
	t.Parallel()
	f := newFixture(t, redistest.Start(t).URL, bulkOptions)
	stats, err := dataset.Generate(f.Ctx, bulk.NewLiveWriter(f.Ctx, f.St.DB), network(dataset.SeededHash("pw", 7)))
	if err != nil {
		t.Fatal(err)
	}
	if stats.Boosts < 200 || stats.Boosts > 300 || stats.Favourites < 300 {
		t.Fatalf("stats = %+v; want about one post in twenty a boost, and three favourites a user", stats)
	}
	fan := f.favourites(t)
	f.boosts(t)
	before := f.Do(t, "HGET", "counts:{"+itoa(fan.post)+"}", "favourites")
	f.Do(t, "HINCRBY", "counts:{"+itoa(fan.post)+"}", "favourites", "1")
	if probs := storetest.Problems(f.Check(t, true)); !slices.ContainsFunc(probs, func(p string) bool { return strings.HasPrefix(p, "favourites:") }) {
		t.Fatalf("the check missed a wrong count of favourites: %v", probs)
	}
	if after := f.Do(t, "HGET", "counts:{"+itoa(fan.post)+"}", "favourites"); after != before {
		t.Fatalf("repaired, the count is %s; want %s", after, before)
	}
}

// TestBulkOnCluster loads the RESP stream of a synthetic network into a
// Redis Cluster (each of its commands touches one slot, or the load
// fails): its favourites and boosts read as on one server, and the check
// finds nothing wrong.
func TestBulkOnCluster(t *testing.T) {
	t.Parallel()
	url := redistest.Cluster(t)
	var stream bytes.Buffer
	if _, err := dataset.Generate(t.Context(), bulk.NewRESPWriter(resp.NewWriter(bufio.NewWriter(&stream))), network(dataset.SeededHash("pw", 7))); err != nil {
		t.Fatal(err)
	}
	if _, err := load.Run(t.Context(), load.Options{URL: url}, &stream); err != nil {
		t.Fatal(err)
	}
	f := newFixture(t, url, bulkOptions)
	f.favourites(t)
	f.boosts(t)
	for _, pr := range f.Check(t, false).Problems {
		if pr.Kind != "users" { // as in TestBulkWriterLive
			t.Errorf("the check finds %s: %s ×%d", pr.Kind, pr.What, pr.Count)
		}
	}
}

// fan is a user of a generated network who favourited a post.
type fan struct{ user, post int64 }

// favourites checks that a generated user's favourites page lists the
// posts they favourited, newest favourite first, marked, counted as
// who favourited them, their authors notified; it returns a favourite.
func (f *fixture) favourites(t *testing.T) fan {
	t.Helper()
	key, uid := f.firstUser(t, "favourites")
	want := f.Strs(t, "ZREVRANGE", key, "0", "-1")
	page, err := f.St.Favourites(f.Ctx, uid, retwis.Cursor{}, 50)
	if err != nil || len(page.Posts) != len(want) {
		t.Fatalf("user %d's favourites: %d posts, %v; want %v", uid, len(page.Posts), err, want)
	}
	for i, p := range page.Posts {
		n := must.Value(strconv.ParseInt(f.Do(t, "ZCARD", "favourited_by:{"+itoa(p.ID)+"}"), 10, 64))(t)
		if itoa(p.ID) != want[i] || !p.Favourited || p.Favourites != n || n < 1 {
			t.Fatalf("user %d's favourite %d is post %d, favourited %v, counted %d; want post %s, favourited, counted %d",
				uid, i, p.ID, p.Favourited, p.Favourites, want[i], n)
		}
		f.notified(t, p.AuthorID, "favourite:"+itoa(uid)+":"+itoa(p.ID), f.Do(t, "ZSCORE", key, itoa(p.ID)))
	}
	return fan{uid, page.Posts[0].ID}
}

// boosts checks that a generated booster sees their boost on the post
// they boosted, counted as who boosted it, its author notified, and that
// a home timeline that got a boost shows the post it boosts.
func (f *fixture) boosts(t *testing.T) {
	t.Helper()
	marks, booster := f.firstUser(t, "boosts")
	m, err := f.Raw.Do(f.Ctx, f.Raw.B().Hgetall().Key(marks).Build()).AsStrMap()
	if err != nil {
		t.Fatal(err)
	}
	for of := range m {
		pid := must.Value(strconv.ParseInt(of, 10, 64))(t)
		p := must.Value(f.St.Post(f.Ctx, booster, pid))(t)
		n := must.Value(strconv.ParseInt(f.Do(t, "ZCARD", "reblogged_by:{"+of+"}"), 10, 64))(t)
		if !p.Reblogged || p.Reblogs != n || n < 1 {
			t.Fatalf("post %s as its booster %d sees it: reblogged %v, counted %d; want reblogged, %d", of, booster, p.Reblogged, p.Reblogs, n)
		}
		f.notified(t, p.AuthorID, "reblog:"+itoa(booster)+":"+of, f.Do(t, "HGET", "post:"+m[of], "time")+"000")
	}
	home, reader := f.firstUser(t, "home_boosts")
	of := f.Strs(t, "ZREVRANGE", home, "0", "0")[0]
	bid := f.Do(t, "ZSCORE", home, of)
	for _, p := range storetest.PageAll(t, f.Home(t, reader, 50), nil) {
		if itoa(p) == bid {
			post := must.Value(f.St.Post(f.Ctx, reader, p))(t)
			if post.Reblog == nil || itoa(post.Reblog.ID) != of || post.Reblog.Reblogs < 1 {
				t.Fatalf("user %d's home shows boost %d as %+v; want post %s, counted", reader, p, post, of)
			}
			return
		}
	}
	t.Fatalf("user %d's home timeline lacks boost %s of post %s, which home_boosts records", reader, bid, of)
}

// firstUser returns the first, by name, of the keys <kind>:{<uid>}
// there are, and its user.
func (f *fixture) firstUser(t *testing.T, kind string) (string, int64) {
	t.Helper()
	keys := f.Keys(t, kind+":*")
	if len(keys) == 0 {
		t.Fatalf("there are no %s keys", kind)
	}
	slices.Sort(keys)
	return keys[0], must.Value(strconv.ParseInt(strings.Trim(strings.TrimPrefix(keys[0], kind+":"), "{}"), 10, 64))(t)
}

// notified checks that uid has the notification note, made at unix ms
// at, unless they have as many newer ones as they keep.
func (f *fixture) notified(t *testing.T, uid int64, note, at string) {
	t.Helper()
	key := "notifications:{" + itoa(uid) + "}"
	if score := f.Do(t, "ZSCORE", key, note); score == at {
		return
	}
	oldest := f.Strs(t, "ZRANGE", key, "0", "0")
	if len(oldest) != 1 || f.Do(t, "ZCARD", key) != strconv.Itoa(schema.NotificationsCap) || f.Do(t, "ZSCORE", key, oldest[0]) < at {
		t.Fatalf("user %d was not notified of %s at %s", uid, note, at)
	}
}

// TestBulkPostsNotRedelivered writes a network whose newest posts are
// minutes old: they are complete in every home timeline, so maintenance
// takes none of them for a post whose delivery job vanished (it would
// deliver them all again, and benchmarks on a seeded network would
// measure that churn).
func TestBulkPostsNotRedelivered(t *testing.T) {
	t.Parallel()
	f := newFixture(t, redistest.Start(t).URL, bulkOptions)
	opts := network(dataset.SeededHash("pw", 7))
	opts.Until = time.Now().Add(-5 * time.Minute)
	if _, err := dataset.Generate(f.Ctx, bulk.NewLiveWriter(f.Ctx, f.St.DB), opts); err != nil {
		t.Fatal(err)
	}
	rep, err := upkeep.Round(f.Ctx, f.St, delivery.New(f.St, delivery.Options{Consumer: "upkeep", ClaimIdle: time.Hour}), deletion.New(f.St))
	if err != nil || rep.Redelivered != 0 {
		t.Fatalf("maintenance redelivered %d generated posts (%v); want none", rep.Redelivered, err)
	}
}

// TestBulkWriterSinksAgree writes the same network through both sinks,
// a RESP stream loaded with package load and the live database, and
// checks that the two databases are identical key by key.
func TestBulkWriterSinksAgree(t *testing.T) {
	t.Parallel()
	hash := dataset.SeededHash("pw", 7)
	live := newFixture(t, redistest.Start(t).URL, bulkOptions)
	if _, err := dataset.Generate(live.Ctx, bulk.NewLiveWriter(live.Ctx, live.St.DB), network(hash)); err != nil {
		t.Fatal(err)
	}
	var stream bytes.Buffer
	bw := bufio.NewWriter(&stream)
	if _, err := dataset.Generate(t.Context(), bulk.NewRESPWriter(resp.NewWriter(bw)), network(hash)); err != nil {
		t.Fatal(err)
	}
	other := redistest.Start(t)
	if _, err := load.Run(t.Context(), load.Options{URL: other.URL}, &stream); err != nil {
		t.Fatal(err)
	}
	loaded := newFixture(t, other.URL, bulkOptions)
	a, b := live.Strs(t, "KEYS", "*"), loaded.Strs(t, "KEYS", "*")
	if len(a) != len(b) {
		t.Fatalf("the live database has %d keys, the loaded stream %d", len(a), len(b))
	}
	for _, k := range a {
		if x, y := live.contents(t, k), loaded.contents(t, k); !slices.Equal(x, y) {
			t.Fatalf("key %s differs between the sinks: %q vs %q", k, x, y)
		}
	}
}

// TestBuildTimeline gives a reader a timeline of the newest 30 posts of
// the authors followed, in a list of the cap and an archive below it:
// paged through, it is those posts, newest first.
func TestBuildTimeline(t *testing.T) {
	t.Parallel()
	f := newFixture(t, redistest.Start(t).URL, store.Options{HomeCap: 10, ArchiveChunk: 4})
	reader := f.Register(t, "reader")
	var want []int64
	for i := range 3 {
		a := f.Register(t, fmt.Sprint("author", i))
		f.Do(t, "ZADD", fmt.Sprint("following:{", reader.ID, "}"), "1", fmt.Sprint(a.ID))
		for k := range 20 {
			p := must.Value(f.St.CreatePost(f.Ctx, a.ID, fmt.Sprint("post ", k)))(t)
			want = append(want, p.ID)
		}
	}
	slices.Sort(want)
	slices.Reverse(want)
	got, err := bulk.BuildTimeline(f.Ctx, f.St, reader.ID, 30)
	if err != nil || !slices.Equal(got, want[:30]) {
		t.Fatalf("BuildTimeline = %v, %v; want the 30 newest %v", got, err, want[:30])
	}
	if n := f.Do(t, "LLEN", fmt.Sprint("posts:{", reader.ID, "}")); n != "10" {
		t.Fatalf("the list holds %s ids; want the cap, 10", n)
	}
	if paged := storetest.PageAll(t, f.Home(t, reader.ID, 7), nil); !slices.Equal(paged, want[:30]) {
		t.Fatalf("paged through: %v; want %v", paged, want[:30])
	}
}

// contents returns what key holds, in a form that does not depend on
// how Redis encodes it: fields and members sorted, lists in order.
func (f *fixture) contents(t *testing.T, key string) []string {
	t.Helper()
	var v []string
	switch typ := f.Do(t, "TYPE", key); typ {
	case "string":
		return []string{f.Do(t, "GET", key)}
	case "list":
		return f.Strs(t, "LRANGE", key, "0", "-1")
	case "zset":
		return f.Strs(t, "ZRANGE", key, "0", "-1", "WITHSCORES")
	case "hash":
		m, err := f.Raw.Do(f.Ctx, f.Raw.B().Hgetall().Key(key).Build()).AsStrMap()
		if err != nil {
			t.Fatal(err)
		}
		for field, value := range m {
			v = append(v, field+"="+value)
		}
	case "set":
		v = f.Strs(t, "SMEMBERS", key)
	case "stream":
		return []string{f.Do(t, "XLEN", key)}
	default:
		t.Fatalf("key %s has type %s", key, typ)
	}
	slices.Sort(v)
	return v
}

// newestOfFollowed returns every post by uid or someone uid follows,
// newest first, read straight from the indexes, and the boosts among
// theirs that reach uid: not of a post by uid or by someone uid
// follows, and only the first boost of a post.
func (f *fixture) newestOfFollowed(t *testing.T, uid int64) []int64 {
	following := f.Strs(t, "ZRANGE", "following:{"+itoa(uid)+"}", "0", "-1")
	authors := append(following, itoa(uid))
	var all []int64
	for _, a := range authors {
		for _, p := range f.Strs(t, "ZRANGE", "user_posts:{"+a+"}", "0", "-1") {
			n := must.Value(strconv.ParseInt(p, 10, 64))(t)
			all = append(all, n)
		}
	}
	slices.Sort(all)
	boosted := map[string]bool{} // the posts whose first boost came
	home := all[:0]
	for _, id := range all {
		of, by := f.Do(t, "HGET", "post:"+itoa(id), "reblog_of"), f.Do(t, "HGET", "post:"+itoa(id), "reblog_user")
		author, _, _ := strings.Cut(by, ":")
		switch {
		case of == "":
			home = append(home, id)
		case author == itoa(uid) || slices.Contains(following, author) || boosted[of]:
		default:
			boosted[of] = true
			home = append(home, id)
		}
	}
	slices.Reverse(home)
	return home
}
