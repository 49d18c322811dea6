package store_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/redisserver"
	"github.com/retwis/retwis/internal/snowflake"
	"github.com/retwis/retwis/internal/store"
	"github.com/retwis/retwis/internal/testkit/redistest"
	"github.com/retwis/retwis/internal/testkit/storetest"
)

// ledger records what the store acknowledged during a failover test.
type ledger struct {
	mu       sync.Mutex
	t        *testing.T
	accounts map[string]int64 // name -> user id
	posts    map[int64]ackedPost
	ok, fail atomic.Int64    // writes (sign-ups, posts) during the fault
	reads    [2]atomic.Int64 // home pages during the fault: succeeded, failed
	fault    atomic.Bool
	masters  int
}

type ackedPost struct {
	author int64
	body   string
}

func (l *ledger) count(err error) {
	if !l.fault.Load() {
		return
	}
	if err == nil {
		l.ok.Add(1)
	} else {
		l.fail.Add(1)
	}
}

func (l *ledger) account(name string, uid int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for other, id := range l.accounts {
		if id == uid {
			l.t.Errorf("user id %d issued to %s and %s", uid, other, name)
		}
	}
	l.accounts[name] = uid
}

func (l *ledger) post(pid, author int64, body string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if p, dup := l.posts[pid]; dup {
		l.t.Errorf("post id %d issued twice (%q and %q)", pid, p.body, body)
	}
	l.posts[pid] = ackedPost{author, body}
}

// work signs up, posts and reads home pages until ctx ends, as a user of
// worker w, and records what was acknowledged.
func (l *ledger) work(ctx context.Context, st *store.Store, w int) {
	var mine []int64
	for n := 0; ctx.Err() == nil; n++ {
		if n%2 == 1 && len(mine) > 0 { // as many page views as writes
			_, _, err := st.HomeTimeline(ctx, mine[n%len(mine)], retwis.Cursor{}, 10)
			if l.fault.Load() && err == nil {
				l.reads[0].Add(1)
			} else if l.fault.Load() {
				l.reads[1].Add(1)
			}
			continue
		}
		if n%3 == 0 || len(mine) == 0 {
			name := fmt.Sprintf("w%d_%d", w, n)
			u, _, err := st.Register(ctx, name, "pw-"+name)
			l.count(err)
			if err == nil {
				l.account(name, u.ID)
				mine = append(mine, u.ID)
			}
			continue
		}
		author := mine[n%len(mine)]
		body := fmt.Sprintf("post %d of worker %d", n, w)
		p, err := st.CreatePost(ctx, author, body)
		l.count(err)
		if err == nil {
			l.post(p.ID, author, body)
		}
	}
}

// TestFailoverLosesNothing runs sign-ups and posts on a 3-master cluster
// with replicas while a master is killed (SIGKILL) or frozen (SIGSTOP,
// then resumed after its replica took over): every acknowledged account
// logs in with its own password to its own id, every acknowledged post is
// intact, with its author, on its author's profile, and no id is issued
// twice. It logs the share of requests that succeeded during the fault.
func TestFailoverLosesNothing(t *testing.T) {
	for _, fault := range []string{"kill", "pause"} {
		t.Run(fault, func(t *testing.T) {
			c := redistest.ReplicatedCluster(t)
			url := "redis://" + strings.Join(c.Addrs(), ",")
			gen, err := snowflake.New(1)
			if err != nil {
				t.Fatal(err)
			}
			st := storetest.Open(t, url, store.Options{IDs: gen, WaitReplicas: 1, WaitTimeout: 2 * time.Second})
			if err := st.Migrate(t.Context(), quiet); err != nil {
				t.Fatal(err)
			}
			l := &ledger{t: t, accounts: map[string]int64{}, posts: map[int64]ackedPost{}}
			ctx, stop := context.WithCancel(t.Context())
			var wg sync.WaitGroup
			for w := range 6 {
				wg.Go(func() { l.work(ctx, st, w) })
			}
			time.Sleep(time.Second)
			masters := c.Masters(t.Context())
			victim := masters[0]
			l.fault.Store(true)
			start := time.Now()
			if fault == "kill" {
				victim.Kill()
			} else if err := victim.Pause(); err != nil {
				t.Fatal(err)
			}
			if err := c.WaitFailover(t.Context(), len(masters), victim); err != nil {
				t.Fatal(err)
			}
			promoted := time.Since(start)
			time.Sleep(500 * time.Millisecond)
			l.fault.Store(false)
			if fault == "pause" {
				victim.Resume() // it comes back as a replica of its successor
			}
			time.Sleep(time.Second)
			l.masters = len(masters)
			stop()
			wg.Wait()
			ok, failed := l.ok.Load(), l.fail.Load()
			rok, rfailed := l.reads[0].Load(), l.reads[1].Load()
			t.Logf("%s: the replica took over after %s; during the fault %d of %d writes succeeded (%.0f%%), %d of %d home pages (%.0f%%)",
				fault, promoted.Round(time.Millisecond), ok, ok+failed, 100*float64(ok)/float64(max(ok+failed, 1)),
				rok, rok+rfailed, 100*float64(rok)/float64(max(rok+rfailed, 1)))
			l.verify(t, url, c)
		})
	}
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
		u, _, err := st.Login(t.Context(), name, "pw-"+name)
		if err != nil || u.ID != uid {
			t.Errorf("acknowledged account %s (id %d): login gives %v, %v", name, uid, u, err)
		}
	}
	for pid, want := range l.posts {
		p, err := st.Post(t.Context(), pid)
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
