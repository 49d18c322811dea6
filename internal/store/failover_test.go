package store_test

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/redisconn"
	"github.com/retwis/retwis/internal/redisserver"
	"github.com/retwis/retwis/internal/snowflake"
	"github.com/retwis/retwis/internal/store"
	"github.com/retwis/retwis/internal/testkit/redistest"
	"github.com/retwis/retwis/internal/testkit/storetest"
)

// ledger records what the store acknowledged during a failover test,
// and how many requests succeeded while the fault lasted.
type ledger struct {
	mu       sync.Mutex
	t        *testing.T
	accounts map[string]int64 // name -> user id
	sessions []session        // the users signed up, to act as
	watcher  int64            // a user who follows every user who signs up…
	watched  map[int64]bool   // … that is, whose follow was acknowledged
	posts    map[int64]ackedPost
	// The requests made during the faults, and after them.
	during, after tallies
	phase         atomic.Int32 // when a request starts: phaseBetween, phaseDuring or phaseAfter
	masters       int
}

// The phases of a failover test, which tell which tallies count a
// request.
const (
	phaseBetween = iota // before the first fault, or between two
	phaseDuring         // from a fault until half a second after its shard serves writes
	phaseAfter          // after the last fault
)

// tallies count the outcomes of requests made in one phase: sign-ups,
// and logged-in requests (a home page or a post, each authenticated by
// its session token).
type tallies struct{ signups, pages, posting tally }

// of returns the tallies of requests started in phase p, nil for none.
func (l *ledger) of(p int32) *tallies {
	switch p {
	case phaseDuring:
		return &l.during
	case phaseAfter:
		return &l.after
	}
	return nil
}

// tally counts requests that succeeded and failed.
type tally struct{ ok, failed atomic.Int64 }

func (t *tally) add(err error) {
	if err == nil {
		t.ok.Add(1)
	} else {
		t.failed.Add(1)
	}
}

func (t *tally) String() string {
	ok, all := t.ok.Load(), t.ok.Load()+t.failed.Load()
	return fmt.Sprintf("%d of %d (%.0f%%)", ok, all, 100*float64(ok)/float64(max(all, 1)))
}

// loggedIn returns how many logged-in requests ts counts, and how many
// of them succeeded.
func (ts *tallies) loggedIn() (ok, all int64) {
	ok = ts.pages.ok.Load() + ts.posting.ok.Load()
	return ok, ok + ts.pages.failed.Load() + ts.posting.failed.Load()
}

func (ts *tallies) String() string {
	ok, all := ts.loggedIn()
	return fmt.Sprintf("%d of %d logged-in requests (%.0f%%)", ok, all, 100*float64(ok)/float64(max(all, 1)))
}

type ackedPost struct {
	author int64
	body   string
}

// session is a user a worker signed up, with its session token.
type session struct {
	uid   int64
	token string
}

func (l *ledger) account(name string, me session) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for other, id := range l.accounts {
		if id == me.uid {
			l.t.Errorf("user id %d issued to %s and %s", me.uid, other, name)
		}
	}
	l.accounts[name] = me.uid
	l.sessions = append(l.sessions, me)
}

func (l *ledger) post(pid, author int64, body string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if p, dup := l.posts[pid]; dup {
		l.t.Errorf("post id %d issued twice (%q and %q)", pid, p.body, body)
	}
	l.posts[pid] = ackedPost{author, body}
}

// run sends requests as many independent users do, one every 4ms
// whatever became of the earlier ones (a request stuck on a frozen node
// does not hold the others back), until ctx ends. A third are sign-ups;
// the others are logged in: home pages and posts, each authenticated by
// its session token.
func (l *ledger) run(ctx context.Context, st *store.Store) {
	var wg sync.WaitGroup
	defer wg.Wait()
	tick := time.NewTicker(4 * time.Millisecond)
	defer tick.Stop()
	slots := make(chan struct{}, 256) // bounds the requests in flight
	for n := 0; ; n++ {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		slots <- struct{}{}
		wg.Go(func() {
			defer func() { <-slots }()
			l.request(ctx, st, n)
		})
	}
}

// request sends the nth request of run and records its outcome, if it
// started during or after the faults, and what it acknowledged.
func (l *ledger) request(ctx context.Context, st *store.Store, n int) {
	ts := l.of(l.phase.Load())
	if ts == nil {
		ts = &tallies{} // not counted
	}
	count := func(t *tally, err error) {
		if ctx.Err() == nil {
			t.add(err)
		}
	}
	me, ok := l.someone(n)
	if n%3 == 0 || !ok {
		name := fmt.Sprintf("u%d", n)
		u, token, err := st.Register(ctx, name, "password-"+name)
		if err == nil {
			// Before the user can post: every post of a watched user must
			// reach the watcher's home timeline.
			if err := st.Follow(ctx, l.watcher, u.ID); err == nil {
				l.watch(u.ID)
			}
			l.account(name, session{u.ID, token})
		}
		count(&ts.signups, err)
		return
	}
	u, err := st.Authenticate(ctx, me.token)
	if err == nil && u.ID != me.uid {
		l.t.Errorf("the token of user %d authenticates user %d", me.uid, u.ID)
	}
	if n%3 == 1 {
		if err == nil {
			_, _, err = st.HomeTimeline(ctx, me.uid, retwis.Cursor{}, 10)
		}
		count(&ts.pages, err)
		return
	}
	body := fmt.Sprintf("post %d", n)
	var p retwis.Post
	if err == nil {
		p, err = st.CreatePost(ctx, me.uid, body)
	}
	count(&ts.posting, err)
	if err == nil {
		l.post(p.ID, me.uid, body)
	}
}

// watch records that the watcher follows uid.
func (l *ledger) watch(uid int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.watched[uid] = true
}

// someone returns one of the users signed up so far, chosen by n.
func (l *ledger) someone(n int) (session, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.sessions) == 0 {
		return session{}, false
	}
	return l.sessions[n%len(l.sessions)], true
}

// TestFailoverLosesNothing runs sign-ups and posts on a cluster of the
// recommended topology (3 masters with two replicas each,
// min-replicas-to-write 1) while each master in turn is killed (SIGKILL)
// or frozen (SIGSTOP), and nobody helps: a killed master stays dead, a
// frozen one is resumed only after its shard serves writes again. Each
// shard's successor must accept writes within 2s of its promotion
// (its other replica follows it by itself), delivery must go on (every
// acknowledged post of a watched user is delivered in the end, through
// the successors' queue shards), and after the faults the logged-in
// requests succeed again. Every acknowledged account logs in with its
// own password to its own id, every acknowledged post is intact, with
// its author, on its author's profile, on the global timeline and
// delivered to a follower, and no id is issued twice. At least half of
// the logged-in requests must succeed during the fault (a master holds a
// third of the users: their requests fail, the others' go on); it logs
// the shares. It judges a share of successes under load, so `make test`
// runs it last and alone (make test-faults).
func TestFailoverLosesNothing(t *testing.T) {
	for _, fault := range []string{"kill", "pause"} {
		t.Run(fault, func(t *testing.T) {
			c := redistest.RecommendedCluster(t)
			url := "redis://" + strings.Join(c.Addrs(), ",")
			gen, err := snowflake.New(1)
			if err != nil {
				t.Fatal(err)
			}
			opts := store.Options{IDs: gen, WaitReplicas: 1, WaitTimeout: 2 * time.Second, HomeCap: 100_000,
				CommandTimeout: redisconn.DefaultCommandTimeout} // a frozen node costs what it costs in production
			st := storetest.Open(t, url, opts)
			if err := st.Migrate(t.Context(), quiet); err != nil {
				t.Fatal(err)
			}
			storetest.StartWorker(t, url, opts)
			watcher, _, err := st.Register(t.Context(), "watcher", "password-watcher")
			if err != nil {
				t.Fatal(err)
			}
			l := &ledger{t: t, accounts: map[string]int64{}, posts: map[int64]ackedPost{}, watcher: watcher.ID, watched: map[int64]bool{}}
			ctx, stop := context.WithCancel(t.Context())
			done := make(chan struct{})
			go func() { l.run(ctx, st); close(done) }()
			time.Sleep(time.Second)
			masters := c.Masters(t.Context())
			l.masters = len(masters)
			// Each master in turn: the one that takes over a shard is not
			// hit again.
			var hit []*redisserver.Server
			var takeovers []string
			for range masters {
				before := c.Masters(t.Context())
				victim := before[slices.IndexFunc(before, func(m *redisserver.Server) bool { return !slices.Contains(hit, m) })]
				promoted, writable := l.fail(t, c, victim, fault, before)
				takeovers = append(takeovers, fmt.Sprintf("%s (writes %s)", promoted.Round(time.Millisecond), writable.Round(time.Millisecond)))
				for _, m := range c.Masters(t.Context(), victim) {
					if !slices.Contains(before, m) {
						hit = append(hit, m) // the successor
					}
				}
				hit = append(hit, victim)
			}
			l.phase.Store(phaseAfter)
			time.Sleep(2 * time.Second)
			stop()
			<-done
			ok, all := l.during.loggedIn()
			t.Logf("%s of each master in turn: replicas took over after %s; during the faults %d of %d logged-in requests succeeded (%.0f%%): home pages %s, posts %s; sign-ups %s; after them, with nobody's help: %s",
				fault, strings.Join(takeovers, ", "), ok, all, 100*float64(ok)/float64(max(all, 1)),
				&l.during.pages, &l.during.posting, &l.during.signups, &l.after)
			// With one master of three failing at a time, about two thirds
			// of the requests can succeed. Run alone, as make test-faults
			// runs it on the recommended topology, eight runs (four of each
			// fault, two of them with -race, on a 2-core machine with other
			// work) saw 65-74 % for kill and 79-81 % for pause.
			// Half catches failures that spread past the failing master.
			if all < 150 || float64(ok) < 0.5*float64(all) {
				t.Errorf("%d of %d logged-in requests succeeded during the faults; want at least 50%% of at least 150", ok, all)
			}
			// Once every shard serves writes again, nothing fails but
			// what a closed connection may fail once.
			if ok, all := l.after.loggedIn(); all < 100 || float64(ok) < 0.98*float64(all) {
				t.Errorf("after the faults, with nobody's help, %d of %d logged-in requests succeeded; want at least 98%% of at least 100", ok, all)
			}
			l.verify(t, url, c)
		})
	}
}

// fail kills or freezes victim, a master, until its replica has taken
// over and accepts writes, counting the requests made meanwhile (see
// injectFault).
func (l *ledger) fail(t *testing.T, c *redisserver.Cluster, victim *redisserver.Server, fault string, before []*redisserver.Server) (promoted, writable time.Duration) {
	t.Helper()
	return injectFault(t, c, victim, fault, l.masters, before, func(during bool) {
		if during {
			l.phase.Store(phaseDuring)
		} else {
			l.phase.Store(phaseBetween)
		}
	})
}

// injectFault kills or freezes victim, one of the masters of c (before
// are the masters before the fault), until its replica has taken over
// and accepts writes, with window(true) called at the fault and
// window(false) half a second after. Nobody restarts a killed victim; a
// frozen one is resumed then, and rejoins as a replica of its
// successor. It returns how long the takeover took, and how long until
// the successor accepted writes (it must, within 2s of its promotion:
// the victim's other replica follows it at once; a spare replica would
// migrate to it only after 5s, and with one replica a master it would
// never have one).
func injectFault(t *testing.T, c *redisserver.Cluster, victim *redisserver.Server, fault string, masters int, before []*redisserver.Server, window func(during bool)) (promoted, writable time.Duration) {
	t.Helper()
	window(true)
	start := time.Now()
	if fault == "kill" {
		victim.Kill()
	} else if err := victim.Pause(); err != nil {
		t.Fatal(err)
	}
	skip := deadNodes(c)
	skip = append(skip, victim)
	if err := c.WaitFailover(t.Context(), masters, skip...); err != nil {
		t.Fatal(err)
	}
	promoted = time.Since(start)
	for _, m := range c.Masters(t.Context(), skip...) {
		if !slices.Contains(before, m) {
			if err := c.WaitWritable(t.Context(), m); err != nil {
				t.Fatal(err)
			}
		}
	}
	writable = time.Since(start)
	if writable-promoted > 2*time.Second {
		t.Errorf("the successor accepted writes %v after its promotion; want within 2s", writable-promoted)
	}
	time.Sleep(500 * time.Millisecond)
	window(false)
	if fault == "pause" {
		victim.Resume()
		if err := c.WaitOK(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	return promoted, writable
}

// verify checks every acknowledged account and post through a new client.
func (l *ledger) verify(t *testing.T, url string, c *redisserver.Cluster) {
	if err := c.WaitFailover(t.Context(), l.masters, deadNodes(c)...); err != nil {
		t.Fatal(err)
	}
	st := storetest.Open(t, url, store.Options{})
	if len(l.accounts) < 10 || len(l.posts) < 10 {
		t.Fatalf("only %d accounts and %d posts acknowledged: the workload did not run", len(l.accounts), len(l.posts))
	}
	for name, uid := range l.accounts {
		u, _, err := st.Login(t.Context(), name, "password-"+name)
		if err != nil || u.ID != uid {
			t.Errorf("acknowledged account %s (id %d): login gives %v, %v", name, uid, u, err)
		}
	}
	for pid, want := range l.posts {
		p, err := st.Post(t.Context(), 0, pid)
		if err != nil || p.AuthorID != want.author || p.Body != want.body {
			t.Errorf("acknowledged post %d (%q by %d): now %+v, %v", pid, want.body, want.author, p, err)
		}
	}
	byAuthor := map[int64][]int64{}
	for pid, p := range l.posts {
		byAuthor[p.author] = append(byAuthor[p.author], pid)
	}
	for author, pids := range byAuthor {
		prof, err := st.Profile(t.Context(), 0, retwis.User{ID: author}, retwis.Cursor{}, 1000)
		if err != nil {
			t.Fatal(err)
		}
		for _, pid := range pids {
			if !slices.Contains(postIDs(prof.Page.Posts), pid) {
				t.Errorf("acknowledged post %d is missing from its author's profile", pid)
			}
		}
	}
	l.verifyDelivered(t, url, st)
}

// verifyDelivered checks, once every delivery job is done, that every
// acknowledged post of a watched user is on the watcher's home timeline,
// and every acknowledged post is on the global timeline (unless older
// than all the capped list holds).
func (l *ledger) verifyDelivered(t *testing.T, url string, st *store.Store) {
	storetest.Drain(t, st)
	raw, err := redisconn.Dial(url)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	list := func(key string) map[int64]bool {
		ids, err := raw.Do(t.Context(), raw.B().Lrange().Key(key).Start(0).Stop(-1).Build()).AsIntSlice()
		if err != nil {
			t.Fatal(err)
		}
		set := map[int64]bool{}
		for _, id := range ids {
			set[id] = true
		}
		return set
	}
	home, global := list(fmt.Sprintf("posts:{%d}", l.watcher)), list("timeline")
	chunks, err := raw.Do(t.Context(), raw.B().Zrange().Key(fmt.Sprintf("archive:{%d}", l.watcher)).Min("0").Max("-1").Build()).AsStrSlice()
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range chunks { // the watcher's archive, if the list overflowed
		maps.Copy(home, list(fmt.Sprintf("archive:{%d}:%s", l.watcher, n)))
	}
	oldest := int64(0)
	if len(global) >= 1000 {
		oldest = slices.Min(slices.Collect(maps.Keys(global)))
	}
	delivered := 0
	for pid, p := range l.posts {
		if l.watched[p.author] {
			delivered++
			if !home[pid] {
				t.Errorf("acknowledged post %d of watched user %d was not delivered to the watcher", pid, p.author)
			}
		}
		if pid >= oldest && !global[pid] {
			t.Errorf("acknowledged post %d is missing from the global timeline", pid)
		}
	}
	if delivered < 10 {
		t.Fatalf("only %d posts of watched users: the follows did not run", delivered)
	}
}

// deadNodes are the nodes that do not answer.
func deadNodes(c *redisserver.Cluster) []*redisserver.Server {
	var dead []*redisserver.Server
	for _, n := range c.Nodes {
		select {
		case <-n.Done():
			dead = append(dead, n)
		default:
		}
	}
	return dead
}
