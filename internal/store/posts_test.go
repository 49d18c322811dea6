package store_test

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/redisconn"
	"github.com/retwis/retwis/internal/store"
	"github.com/retwis/retwis/internal/store/deletion"
	"github.com/retwis/retwis/internal/store/delivery"
	"github.com/retwis/retwis/internal/store/schema"
	"github.com/retwis/retwis/internal/store/upkeep"
	"github.com/retwis/retwis/internal/testkit/must"
	"github.com/retwis/retwis/internal/testkit/redistest"
	"github.com/retwis/retwis/internal/testkit/storetest"
)

func TestPostFanout(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	alice, bob, carol, dave := f.Register(t, "alice"), f.Register(t, "bob"), f.Register(t, "carol"), f.Register(t, "dave")
	for _, follower := range []retwis.User{bob, carol} {
		if err := f.St.Follow(f.Ctx, follower.ID, alice.ID); err != nil {
			t.Fatal(err)
		}
	}
	p, err := f.St.CreatePost(f.Ctx, alice.ID, "  hello\r\nworld\n ")
	if err != nil {
		t.Fatal(err)
	}
	f.Drain(t)
	if p.Body != "hello\nworld" || f.Do(t, "HGET", fmt.Sprint("post:", p.ID), "body") != "hello\nworld" {
		t.Fatalf("body = %q; line breaks must become \\n and the text be trimmed", p.Body)
	}
	pid := fmt.Sprint(p.ID)
	for _, u := range []retwis.User{alice, bob, carol} {
		if got := f.Strs(t, "LRANGE", fmt.Sprint("posts:{", u.ID, "}"), "0", "-1"); !slices.Equal(got, []string{pid}) {
			t.Errorf("home timeline of %s = %v; want [%s]", u.Username, got, pid)
		}
	}
	if got := f.Strs(t, "LRANGE", fmt.Sprint("posts:{", dave.ID, "}"), "0", "-1"); len(got) != 0 {
		t.Errorf("dave follows nobody but got %v", got)
	}
	if got := f.Strs(t, "LRANGE", "timeline", "0", "-1"); !slices.Equal(got, []string{pid}) {
		t.Errorf("global timeline = %v", got)
	}

	// Bob's own post is on his home and profile but not on alice's.
	bp := must.Value(f.St.CreatePost(f.Ctx, bob.ID, "bob here"))(t)
	f.Drain(t)
	home, counts, err := f.St.HomeTimeline(f.Ctx, bob.ID, retwis.Cursor{}, 10)
	if err != nil || !slices.Equal(postIDs(home.Posts), []int64{bp.ID, p.ID}) || counts.Following != 1 {
		t.Fatalf("bob's home = %v %+v %v", postIDs(home.Posts), counts, err)
	}
	if home.Posts[1].Author != "alice" || home.Posts[1].Body != "hello\nworld" {
		t.Fatalf("post not hydrated: %+v", home.Posts[1])
	}
	prof, err := f.St.Profile(f.Ctx, alice.ID, bob, retwis.Cursor{}, 10)
	if err != nil || !slices.Equal(postIDs(prof.Page.Posts), []int64{bp.ID}) || prof.Followed {
		t.Fatalf("bob's profile = %v followed=%v %v", postIDs(prof.Page.Posts), prof.Followed, err)
	}
	prof = must.Value(f.St.Profile(f.Ctx, bob.ID, alice, retwis.Cursor{}, 10))(t)
	if !prof.Followed || prof.Counts.Followers != 2 || !slices.Equal(postIDs(prof.Page.Posts), []int64{p.ID}) {
		t.Fatalf("alice's profile seen by bob = %+v", prof)
	}
}

func TestPostInvalidWritesNothing(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	u := f.Register(t, "poster")
	before := f.Snapshot(t)
	for _, text := range []string{"", "   ", "\n\r\n", strings.Repeat("é", 501), "bad \xff utf8", "nul\x00byte", strings.Repeat("x", 20000), strings.Repeat("x", 100000)} {
		_, err := f.St.CreatePost(f.Ctx, u.ID, text)
		storetest.WantKind(t, err, retwis.Invalid)
	}
	f.AssertUnchanged(t, before)
	if _, err := f.St.CreatePost(f.Ctx, u.ID, strings.Repeat("é", 500)); err != nil {
		t.Fatalf("a post of exactly 500 code points was refused: %v", err)
	}
}

func TestFollowRules(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	a, b := f.Register(t, "a"), f.Register(t, "b")
	before := f.Snapshot(t)
	storetest.WantKind(t, f.St.Follow(f.Ctx, a.ID, a.ID), retwis.Invalid)
	storetest.WantKind(t, f.St.Unfollow(f.Ctx, a.ID, a.ID), retwis.Invalid)
	f.AssertUnchanged(t, before)

	if err := f.St.Follow(f.Ctx, a.ID, b.ID); err != nil {
		t.Fatal(err)
	}
	if f.Do(t, "ZSCORE", "following:{1}", "2") == "" || f.Do(t, "ZSCORE", "followers:{2}", "1") == "" {
		t.Fatal("follow not recorded in both sorted sets")
	}
	if err := f.St.Follow(f.Ctx, a.ID, b.ID); err != nil { // idempotent
		t.Fatal(err)
	}
	if n := f.Do(t, "ZCARD", "followers:{2}"); n != "1" {
		t.Fatalf("%s followers after a double follow; want 1", n)
	}
	if err := f.St.Unfollow(f.Ctx, a.ID, b.ID); err != nil {
		t.Fatal(err)
	}
	if f.Do(t, "EXISTS", "following:{1}") != "0" || f.Do(t, "EXISTS", "followers:{2}") != "0" {
		t.Fatal("unfollow left entries")
	}
}

func TestGlobalTimelineCapped(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	u := f.Register(t, "prolific")
	for i := range 1005 {
		if _, err := f.St.CreatePost(f.Ctx, u.ID, fmt.Sprint("post ", i)); err != nil {
			t.Fatal(err)
		}
	}
	if n := f.Do(t, "LLEN", "timeline"); n != "1000" {
		t.Fatalf("global timeline holds %s posts; want 1000", n)
	}
	if first := f.Do(t, "LINDEX", "timeline", "0"); first != "1005" {
		t.Fatalf("newest post on the global timeline is %s; want 1005", first)
	}
	page, err := f.St.GlobalTimeline(f.Ctx, 0, retwis.Cursor{}, 50)
	if err != nil || len(page.Posts) != 50 || page.Posts[0].ID != 1005 || page.Posts[49].ID != 956 || !page.Older {
		t.Fatalf("GlobalTimeline(50) = %d posts, %v", len(page.Posts), err)
	}
	// The global timeline pages by cursor down to its 1000th post.
	var seen int
	for c := (retwis.Cursor{}); ; {
		page, err := f.St.GlobalTimeline(f.Ctx, 0, c, 50)
		if err != nil {
			t.Fatal(err)
		}
		seen += len(page.Posts)
		if !page.Older {
			break
		}
		c = retwis.Cursor{Before: page.Posts[len(page.Posts)-1].ID}
	}
	if seen != 1000 {
		t.Fatalf("paging the global timeline saw %d posts; want 1000", seen)
	}
}

// TestConstantRoundTrips proves pages cost no more round trips whatever
// their size or depth (a warm page none at all), and posting the same
// whatever the number of followers.
func TestConstantRoundTrips(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	authors := []retwis.User{f.Register(t, "author1"), f.Register(t, "author2"), f.Register(t, "author3")}
	reader := f.Register(t, "reader")
	calls := func(fn func()) int64 {
		before := f.RC.Calls.Load()
		fn()
		return f.RC.Calls.Load() - before
	}
	post := func(a retwis.User) int64 {
		return calls(func() {
			if _, err := f.St.CreatePost(f.Ctx, a.ID, "hi"); err != nil {
				t.Fatal(err)
			}
		})
	}
	alone := post(authors[0])
	for _, a := range authors {
		must.OK(t, f.St.Follow(f.Ctx, reader.ID, a.ID))
	}
	for i := range 40 {
		must.OK(t, f.St.Follow(f.Ctx, int64(100+i), authors[1].ID)) // many followers
	}
	if popular := post(authors[1]); popular != alone {
		t.Fatalf("posting with 41 followers took %d round trips, with none %d", popular, alone)
	}
	// Each page is read twice: once after the changes (the cache was
	// invalidated), once again (warm: no round trip at all). The store
	// forgets its own recent writes first, as it does after 5s.
	twice := func(read func()) (cold, warm int64) {
		f.St.ForgetWrites()
		return calls(read), calls(read)
	}
	home := func() (int64, int64) {
		return twice(func() { f.Home(t, reader.ID, 10)(retwis.Cursor{}) })
	}
	profile := func() (int64, int64) {
		return twice(func() { must.Value(f.St.Profile(f.Ctx, reader.ID, authors[1], retwis.Cursor{}, 10))(t) })
	}
	global := func() (int64, int64) {
		return twice(func() { must.Value(f.St.GlobalTimeline(f.Ctx, 0, retwis.Cursor{}, 50))(t) })
	}
	// A list shorter than a page may go on in the archive: one call more.
	short, _ := home()
	for i := range 12 {
		post(authors[i%3])
	}
	f.Drain(t)
	full, warm := home()
	for i := range 30 {
		post(authors[i%3])
	}
	f.Drain(t)
	// The short page was the first ever: nothing was cached, and the
	// visit was recorded (one write). A page read cold costs two calls:
	// the list, counts and followed celebrities at once, then the posts.
	if again, _ := home(); again > full || full > 2 || short > 4 {
		t.Fatalf("home page round trips: %d with a short list, %d with a full page, %d with more posts; want ≤4, ≤2, and no more with more posts",
			short, full, again)
	}
	// A page below the list, by the archive, once the pages of 10 above
	// it and itself were read: its posts are warm, and so are its marks,
	// which are read for a page at once (the same 10 posts).
	deep := func(depth int) int64 {
		ids := pageAll(t, f.Home(t, reader.ID, 10), nil)
		return calls(func() { f.Home(t, reader.ID, 10)(retwis.Cursor{Before: ids[depth-1]}) })
	}
	if near, far := deep(10), deep(40); near != far || far > 3 {
		t.Fatalf("a page 10 posts down took %d round trips, 40 posts down %d; want the same, at most 3", near, far)
	}
	if warm != 0 {
		t.Fatalf("a warm home page took %d round trips; want none", warm)
	}
	profileCold, _ := profile()
	globalCold, _ := global()
	for i := range 30 {
		post(authors[i%3])
	}
	f.Drain(t)
	if n, warm := profile(); profileCold > 2 || n > 2 || warm != 0 {
		t.Fatalf("a full profile page took %d round trips (%d warm), a short one %d; want at most 2, none warm", n, warm, profileCold)
	}
	if n, warm := global(); globalCold > 2 || n > 2 || warm != 0 {
		t.Fatalf("50 posts of the global timeline took %d round trips (%d warm), fewer posts %d; want at most 2, none warm", n, warm, globalCold)
	}
}

// TestMigrateLegacyDatabase runs Migrate over data written the way the
// original Retwis writes it, plus the keys of retwis before version 3,
// and checks that the indexes it adds appear, that the indexes every
// request shared are spread over shards, and that nothing old remains.
func TestMigrateLegacyDatabase(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.Do(t, "DEL", "schema_version")
	f.Do(t, "HSET", "users", "Legacy", "7", "other", "8")
	f.Do(t, "HSET", "auths", "s7", "7", "s8", "8")
	f.Do(t, "HSET", "user:7", "username", "Legacy", "password", "secret99", "auth", "s7")
	f.Do(t, "HSET", "user:8", "username", "other", "password", "secret99", "auth", "s8")
	f.Do(t, "ZADD", "last_seen", "1401267700", "8")
	f.Do(t, "ZADD", "users_by_time", "1401267600", "Legacy")
	f.Do(t, "SADD", "celebrities", "8")
	f.Do(t, "ZADD", "followers:7", "1", "9") // user 9 follows Legacy, and a job of the old queue is pending
	f.Do(t, "ZADD", "following:9", "1", "7")
	f.Do(t, "XADD", "deliveries", "*", "kind", "deliver", "post", "3", "author", "7")
	f.Do(t, "HSET", "delivery_progress", "1-1", "500")
	f.Do(t, "SET", "next_post_id", "3")
	f.Do(t, "HSET", "post:1", "user_id", "7", "time", "1401267618", "body", "old one #Café for @OTHER")
	f.Do(t, "HSET", "post:3", "user_id", "7", "time", "1401267619", "body", "old three #cafe") // post 2 is gone
	f.Do(t, "LPUSH", "posts:7", "1", "2", "3")
	// A post made ten minutes ago, delivered by the original as it posted.
	f.Do(t, "SET", "next_post_id", "4")
	f.Do(t, "HSET", "post:4", "user_id", "8", "time", strconv.FormatInt(time.Now().Add(-10*time.Minute).Unix(), 10), "body", "recent")
	f.Do(t, "LPUSH", "timeline", "1", "3", "4")

	if err := f.St.Migrate(f.Ctx, quiet); err != nil {
		t.Fatal(err)
	}
	if got := f.Strs(t, "ZREVRANGE", "user_posts:{7}", "0", "-1"); !slices.Equal(got, []string{"3", "1"}) {
		t.Fatalf("user_posts:7 = %v", got)
	}
	u, err := f.St.UserByName(f.Ctx, "LEGACY")
	if err != nil || u.ID != 7 {
		t.Fatalf("case-insensitive lookup after migration: %v, %v", u, err)
	}
	home, _, err := f.St.HomeTimeline(f.Ctx, 7, retwis.Cursor{}, 10)
	if err != nil || !slices.Equal(postIDs(home.Posts), []int64{3, 1}) {
		t.Fatalf("legacy home timeline = %v, %v (the missing post 2 must be skipped)", postIDs(home.Posts), err)
	}
	if f.Do(t, "GET", "schema_version") != strconv.Itoa(schema.Version) {
		t.Fatal("schema_version not recorded")
	}
	if found, err := f.St.SearchPeople(f.Ctx, "legacy", 10); err != nil || len(found) != 0 {
		t.Fatalf("people search before maintenance: %v, %v; want nobody yet", found, err)
	}
	// The posts are indexed by tag and mention and named after their
	// authors, the users entered in the people search, the directory and
	// the order of activity, and the follows in the graph, by
	// maintenance, in the background, once.
	for round, want := range []int{2 + 2 + 1 + 2 + 3 + 2, 0} {
		rep, err := upkeep.Round(f.Ctx, f.St, delivery.New(f.St, delivery.Options{Consumer: "upkeep", ClaimIdle: time.Hour}), deletion.New(f.St))
		if err != nil || rep.Reindexed != want {
			t.Fatalf("maintenance round %d indexed %d older posts and users (%v); want %d", round, rep.Reindexed, err, want)
		}
		if rep.Redelivered != 0 {
			t.Fatalf("maintenance round %d delivered %d migrated posts again; the original delivered them as it posted", round, rep.Redelivered)
		}
	}
	if found, err := f.St.SearchPeople(f.Ctx, "LEG", 10); err != nil || len(found) != 1 || found[0].User.ID != 7 {
		t.Fatalf("people search after maintenance: %v, %v; want Legacy", found, err)
	}
	listed, err := f.St.Explore(f.Ctx, retwis.Directory{Followers: retwis.Range{Min: 1, Max: -1}, Posts: retwis.Any}, 10)
	if err != nil || len(listed.Accounts) != 1 || listed.Accounts[0].User.ID != 7 || listed.Accounts[0].Joined.Year() != 2014 {
		t.Fatalf("the directory after maintenance: %+v, %v; want Legacy, followed, joined in 2014", listed, err)
	}
	if rel, err := f.St.Relationship(f.Ctx, 7, 9); err != nil || !rel.FollowsYou {
		t.Fatalf("the graph after maintenance: %+v, %v; want user 9 following Legacy", rel, err)
	}
	if tagged, err := f.St.TagPosts(f.Ctx, 0, "CAFÉ", retwis.Cursor{}, 10); err != nil || !slices.Equal(postIDs(tagged.Posts), []int64{3, 1}) {
		t.Fatalf("#CAFÉ after migration: %v, %v; want the legacy posts 3 and 1", postIDs(tagged.Posts), err)
	}
	if mentions, err := f.St.Mentions(f.Ctx, 8, retwis.Cursor{}, 10); err != nil || !slices.Equal(postIDs(mentions.Posts), []int64{1}) {
		t.Fatalf("other's mentions after migration: %v, %v; want post 1", postIDs(mentions.Posts), err)
	}
	for _, p := range []struct{ key, author string }{{"post:1", "Legacy"}, {"post:3", "Legacy"}, {"post:4", "other"}} {
		if got := f.Do(t, "HGET", p.key, "username"); got != p.author {
			t.Fatalf("%s after maintenance is by %q; want %s's username", p.key, got, p.author)
		}
	}
	if f.Do(t, "EXISTS", "notifications:{8}") != "0" {
		t.Fatal("indexing the older posts notified a user of a mention of long ago")
	}
	if u, err := f.St.Authenticate(f.Ctx, "s8"); err != nil || u.ID != 8 {
		t.Fatalf("a legacy cookie after migration: %v, %v", u, err)
	}
	if f.Do(t, "HGET", "user:{8}", "seen") != "1401267700" || f.Do(t, "HGET", "user:{8}", "celebrity") != "1" {
		t.Fatal("last-seen times and celebrities not moved into the user hashes")
	}
	f.Drain(t)
	if got := f.Strs(t, "LRANGE", "posts:{9}", "0", "-1"); !slices.Equal(got, []string{"3"}) {
		t.Fatalf("the job of the old schema.Queue was not carried out: posts:9 = %v", got)
	}
	for _, old := range []string{"users", "auths", "last_seen", "celebrities", "deliveries", "delivery_progress",
		"user:7", "user:8", "posts:7", "followers:7"} { // the per-user keys now carry the user id as hash tag
		if f.Do(t, "EXISTS", old) != "0" {
			t.Fatalf("the old key %s is left", old)
		}
	}
}

// limitedURL returns url with the credentials of a new Redis user that
// may do everything but the given commands.
func (f *fixture) limitedURL(t *testing.T, url string, denied ...string) string {
	t.Helper()
	rules := []string{"ACL", "SETUSER", "limited", "on", ">limitedpw", "~*", "&*", "+@all"}
	for _, c := range denied {
		rules = append(rules, "-"+c)
	}
	f.Do(t, rules...)
	return strings.Replace(url, "://", "://limited:limitedpw@", 1)
}

// TestPublishCompleteOrInvisible makes the last step of posting fail (the
// delivery job cannot be recorded): the post must not be left half
// published, and trying again gives exactly one post.
func TestPublishCompleteOrInvisible(t *testing.T) {
	t.Parallel()
	r := redistest.Start(t)
	f := newFixtureAt(t, r.URL)
	author, fan := f.Register(t, "author"), f.Register(t, "fan")
	must.OK(t, f.St.Follow(f.Ctx, fan.ID, author.ID))
	c, err := redisconn.Dial(f.limitedURL(t, r.URL, "xadd"))
	if err != nil {
		t.Fatal(err)
	}
	limited, err := store.New(c, store.Options{Password: storetest.Cheap, Log: quiet})
	if err != nil {
		t.Fatal(err)
	}
	defer limited.Close()
	before := f.Snapshot(t)
	if _, err := limited.CreatePost(f.Ctx, author.ID, "will fail"); err == nil {
		t.Fatal("posting without XADD succeeded")
	}
	delete(before, "next_post_id") // the one thing that may change: ids are not reused
	after := f.Snapshot(t)
	delete(after, "next_post_id")
	// Nor is the instance's activity, a statistic written with the post's
	// writes, which happened: it counts the attempt.
	activity := func(k, _ string) bool { return strings.HasPrefix(k, "activity:") }
	maps.DeleteFunc(before, activity)
	maps.DeleteFunc(after, activity)
	if len(after) != len(before) {
		t.Fatalf("a failed post left keys behind: %d keys before, %d after", len(before), len(after))
	}
	for k, v := range before {
		if after[k] != v {
			t.Fatalf("a failed post changed %s", k)
		}
	}
	if _, err := f.St.CreatePost(f.Ctx, author.ID, "will work"); err != nil {
		t.Fatal(err)
	}
	prof := must.Value(f.St.Profile(f.Ctx, 0, author, retwis.Cursor{}, 10))(t)
	if len(prof.Page.Posts) != 1 {
		t.Fatalf("after a retry the profile shows %d posts; want 1", len(prof.Page.Posts))
	}
}

// TestDamagedDataIsNoOutage damages a post hash in two ways: the
// migration skips it and the server starts, and pages skip it, rather
// than reporting the database as unavailable.
func TestDamagedDataIsNoOutage(t *testing.T) {
	t.Parallel()
	f := newFixtureWith(t, redistest.Start(t).URL, store.Options{}, false)
	u := f.Register(t, "writer")
	p1 := must.Value(f.St.CreatePost(f.Ctx, u.ID, "fine"))(t)
	p2 := must.Value(f.St.CreatePost(f.Ctx, u.ID, "to be damaged"))(t)
	p3 := must.Value(f.St.CreatePost(f.Ctx, u.ID, "also fine"))(t)
	f.Do(t, "HSET", fmt.Sprint("post:", p2.ID), "user_id", "not a number")
	f.Do(t, "SET", "post:77", "not a hash")
	f.Do(t, "SET", "next_post_id", "100")
	f.Do(t, "DEL", "schema_version")
	if err := f.St.Migrate(f.Ctx, quiet); err != nil {
		t.Fatalf("migration over damaged posts: %v", err)
	}
	f.Do(t, "LPUSH", "timeline", "77")
	page, err := f.St.GlobalTimeline(f.Ctx, 0, retwis.Cursor{}, 10)
	if err != nil || !slices.Equal(postIDs(page.Posts), []int64{p3.ID, p1.ID}) {
		t.Fatalf("global timeline over damaged posts = %v, %v; want the sound ones", postIDs(page.Posts), err)
	}
	f.Do(t, "SET", fmt.Sprint("followers:{", u.ID, "}"), "damaged")
	_, err = f.St.Profile(f.Ctx, 0, u, retwis.Cursor{}, 10)
	if k := retwis.ErrorKind(err); k != retwis.Internal {
		t.Fatalf("a damaged key gives %v (%v); want an internal error, not an outage", k, err)
	}
}

// TestFullRedis fills Redis to its memory limit: pages still read, and
// writes fail as "storage full" (retryable) without writing anything.
func TestFullRedis(t *testing.T) {
	t.Parallel()
	f := newFixtureWith(t, redistest.Start(t).URL, store.Options{}, false)
	u := f.Register(t, "reader")
	p := must.Value(f.St.CreatePost(f.Ctx, u.ID, "written before the flood"))(t)
	_, secret, err := f.St.Login(f.Ctx, "reader", "password1")
	must.OK(t, err)
	// Seen two hours ago: the next home page would record the visit.
	f.Do(t, "HSET", fmt.Sprint("user:{", u.ID, "}"), "seen", strconv.FormatInt(time.Now().Add(-2*time.Hour).Unix(), 10))
	info := f.Do(t, "INFO", "memory")
	var mem int64
	for line := range strings.SplitSeq(info, "\r\n") {
		if v, ok := strings.CutPrefix(line, "used_memory:"); ok {
			mem = must.Value(strconv.ParseInt(v, 10, 64))(t)
		}
	}
	f.Do(t, "CONFIG", "SET", "maxmemory-policy", "noeviction")
	f.Do(t, "CONFIG", "SET", "maxmemory", strconv.FormatInt(mem+1<<20, 10))
	for i := 0; ; i++ {
		err := f.Raw.Do(f.Ctx, f.Raw.B().Set().Key(fmt.Sprint("ballast:", i)).Value(strings.Repeat("x", 10000)).Build()).Error()
		if err != nil {
			break
		}
	}
	if _, err := f.St.Authenticate(f.Ctx, secret); err != nil {
		t.Fatalf("authenticate on a full Redis: %v", err)
	}
	page, _, err := f.St.HomeTimeline(f.Ctx, u.ID, retwis.Cursor{}, 10)
	if err != nil || len(page.Posts) != 1 || page.Posts[0].ID != p.ID {
		t.Fatalf("home on a full Redis = %v, %v", postIDs(page.Posts), err)
	}
	if _, err := f.St.Profile(f.Ctx, 0, u, retwis.Cursor{}, 10); err != nil {
		t.Fatalf("profile on a full Redis: %v", err)
	}
	_, err = f.St.CreatePost(f.Ctx, u.ID, "no room")
	if retwis.ErrorKind(err) != retwis.Unavailable || !strings.Contains(retwis.ErrorMessage(err), "full") {
		t.Fatalf("posting on a full Redis: %v (kind %v); want unavailable, storage full", err, retwis.ErrorKind(err))
	}
	if n := f.Do(t, "ZCARD", fmt.Sprint("user_posts:{", u.ID, "}")); n != "1" {
		t.Fatalf("a refused post was indexed (%s posts)", n)
	}
}

// TestReadsOwnWrites reads what a server has just changed, as the page
// after a deletion or a logout does: the client-side cache must not hand
// back the old copy while Redis's invalidation is still on its way.
func TestReadsOwnWrites(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	u := f.Register(t, "alice")
	for i := range 200 {
		p, err := f.St.CreatePost(f.Ctx, u.ID, fmt.Sprint("post ", i))
		if err != nil {
			t.Fatal(err)
		}
		for range 2 { // the second read is served from the cache
			if _, err := f.St.Post(f.Ctx, 0, p.ID); err != nil {
				t.Fatal(err)
			}
		}
		if err := f.St.DeletePost(f.Ctx, u.ID, p.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := f.St.Post(f.Ctx, 0, p.ID); retwis.ErrorKind(err) != retwis.NotFound {
			t.Fatalf("round %d: the deleted post is still read: %v", i, err)
		}
	}
	login := func() string {
		t.Helper()
		_, secret, err := f.St.Login(f.Ctx, "alice", "password1")
		if err != nil {
			t.Fatal(err)
		}
		return secret
	}
	secret := login()
	for i := range 100 {
		for range 2 {
			if _, err := f.St.Authenticate(f.Ctx, secret); err != nil {
				t.Fatal(err)
			}
		}
		if err := f.St.Logout(f.Ctx, u.ID, secret); err != nil {
			t.Fatal(err)
		}
		if _, err := f.St.Authenticate(f.Ctx, secret); retwis.ErrorKind(err) != retwis.Unauthorized {
			t.Fatalf("round %d: the secret still works after logout: %v", i, err)
		}
		secret = login()
	}
}
