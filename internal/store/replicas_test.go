package store_test

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/redisconn"
	"github.com/retwis/retwis/internal/store"
	"github.com/retwis/retwis/internal/store/kernel"
	"github.com/retwis/retwis/internal/testkit/must"
	"github.com/retwis/retwis/internal/testkit/redistest"
	"github.com/retwis/retwis/internal/testkit/storetest"
)

// TestWritesWaitForReplicas pauses the replica of the store's master: a
// new account and a new post are not acknowledged until the replica has
// them, and once it resumes, it has them the moment they are.
func TestWritesWaitForReplicas(t *testing.T) {
	t.Parallel()
	master, replica := redistest.Replicated(t)
	f := newFixtureWith(t, master.URL, store.Options{WaitReplicas: 1, WaitTimeout: 10 * time.Second}, false)
	onReplica := storetest.Open(t, replica.URL, store.Options{}) // reads only: a replica refuses writes
	author := f.Register(t, "author")

	replica.Pause(t)
	type result struct {
		id  int64
		err error
	}
	done := make(chan result, 1)
	go func() {
		p, err := f.St.CreatePost(f.Ctx, author.ID, "replicated before acknowledged")
		done <- result{p.ID, err}
	}()
	// The post is written once the store's connection waits in WAIT for
	// the replica: until then, and then, it is not acknowledged.
	for !f.blockedInWait(t) {
		select {
		case r := <-done:
			t.Fatalf("the post was answered while the replica was paused: %+v", r)
		case <-time.After(5 * time.Millisecond):
		}
	}
	select {
	case r := <-done:
		t.Fatalf("the post was acknowledged while the replica was paused: %+v", r)
	default:
	}
	replica.Resume(t)
	r := <-done
	if r.err != nil {
		t.Fatal(r.err)
	}
	if got, err := onReplica.Post(f.Ctx, 0, r.id); err != nil || got.AuthorID != author.ID {
		t.Fatalf("the replica lacks the acknowledged post: %+v, %v", got, err)
	}
	prof, err := onReplica.Profile(f.Ctx, 0, author, retwis.Cursor{}, 10)
	if err != nil || len(prof.Page.Posts) != 1 {
		t.Fatalf("the replica lacks the acknowledged post's index entry: %v, %v", postIDs(prof.Page.Posts), err)
	}
	if _, err := onReplica.UserByName(f.Ctx, "author"); err != nil {
		t.Fatalf("the replica lacks the acknowledged account: %v", err)
	}
}

// blockedInWait reports whether a client of the fixture's Redis is
// blocked in a WAIT for its replicas.
func (f *fixture) blockedInWait(t *testing.T) bool {
	t.Helper()
	for line := range strings.SplitSeq(f.Do(t, "CLIENT", "LIST"), "\n") {
		fields := map[string]string{}
		for field := range strings.FieldsSeq(line) {
			k, v, _ := strings.Cut(field, "=")
			fields[k] = v
		}
		if fields["cmd"] == "wait" && strings.Contains(fields["flags"], "b") {
			return true
		}
	}
	return false
}

// TestWaitTimesOut bounds the wait: with the replica gone, a post fails
// after the wait's timeout, as an outage, and is not published: on a
// master that a failover replaced, it would be lost. (The store tries a
// few post ids, each in another slot, before it gives up: the post
// takes a few timeouts.)
func TestWaitTimesOut(t *testing.T) {
	t.Parallel()
	const timeout = 500 * time.Millisecond
	master, replica := redistest.Replicated(t)
	f := newFixtureWith(t, master.URL, store.Options{WaitReplicas: 1, WaitTimeout: timeout}, false)
	author := f.Register(t, "author")
	replica.Pause(t)
	defer replica.Resume(t)
	start := time.Now()
	_, err := f.St.CreatePost(f.Ctx, author.ID, "the replica is down")
	if retwis.ErrorKind(err) != retwis.Unavailable {
		t.Fatalf("posting without a replica: %v; want unavailable", err)
	}
	if d := time.Since(start); d < timeout || d > 6*time.Second {
		t.Fatalf("posting took %s; want the wait's timeout, %s, and then an answer", d, timeout)
	}
	if prof, err := f.St.Profile(f.Ctx, 0, author, retwis.Cursor{}, 10); err != nil || len(prof.Page.Posts) != 0 {
		t.Fatalf("the failed post shows: %v, %v", postIDs(prof.Page.Posts), err)
	}
}

// TestReplicaReads reads post hashes and usernames from the replicas of a
// cluster: a post read the moment it is written (which its replica may
// not hold yet) is found on the master, and the replicas answer reads.
func TestReplicaReads(t *testing.T) {
	t.Parallel()
	c := redistest.ReplicatedCluster(t)
	url := "redis://" + strings.Join(c.Addrs(), ",") // replicas among the seeds
	// Redis 7.0 lists a replica in CLUSTER SLOTS only once it has
	// replicated something (its masters ping it every second here), and
	// nodes learn that by gossip: dial until the client finds them all.
	var client rueidis.Client
	deadline := time.Now().Add(15 * time.Second)
	for {
		var err error
		if client, err = redisconn.DialWith(url, redisconn.Options{ReadFromReplica: kernel.ReadFromReplica}); err != nil {
			t.Fatal(err)
		}
		if len(client.Nodes()) == len(c.Nodes) {
			break
		}
		client.Close()
		if time.Now().After(deadline) {
			t.Fatal("the client never saw the replicas")
		}
		time.Sleep(100 * time.Millisecond)
	}
	st, err := store.New(client, store.Options{Password: storetest.Cheap, Log: quiet, ReplicaReads: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.Migrate(t.Context(), quiet); err != nil {
		t.Fatal(err)
	}
	author, _, err := st.Register(t.Context(), "author", "password1")
	if err != nil {
		t.Fatal(err)
	}
	replicaReads := func() int64 {
		var n int64
		for _, node := range c.Nodes {
			if info := must.Value(node.Command(t.Context(), "INFO", "replication"))(t); !strings.Contains(info, "role:slave") {
				continue
			}
			stats, err := node.Command(t.Context(), "INFO", "commandstats")
			if err != nil {
				t.Fatal(err)
			}
			for line := range strings.SplitSeq(stats, "\r\n") {
				for _, cmd := range []string{"cmdstat_hmget:calls=", "cmdstat_hget:calls="} {
					if v, ok := strings.CutPrefix(line, cmd); ok {
						calls := must.Value(strconv.ParseInt(strings.Split(v, ",")[0], 10, 64))(t)
						n += calls
					}
				}
			}
		}
		return n
	}
	before := replicaReads()
	for i := range 30 {
		p, err := st.CreatePost(t.Context(), author.ID, fmt.Sprint("post ", i))
		if err != nil {
			t.Fatal(err)
		}
		got, err := st.Post(t.Context(), 0, p.ID) // at once: the replica may lag
		if err != nil || got.Body != p.Body || got.Author != "author" {
			t.Fatalf("post %d read at once: %+v, %v", p.ID, got, err)
		}
	}
	if replicaReads() == before {
		t.Fatal("no read went to a replica")
	}
}

func TestReadFromReplica(t *testing.T) {
	t.Parallel()
	c, err := redisconn.Dial(redistest.Start(t).URL)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, tc := range []struct {
		cmd  []string
		want bool
	}{
		{[]string{"HMGET", "post:7", "user_id", "time", "body", "username", "mentions", "reply_to", "reply_user", "warning", "edited", "visibility", "reblog_of", "reblog_user", "media", "sensitive", "card"}, true},
		{[]string{"HMGET", "post:7", "user_id", "time", "body", "username", "mentions", "reply_to", "reply_user", "warning", "edited", "visibility", "reblog_of", "reblog_user", "media", "sensitive", "card", "fanout"}, false}, // the master re-read
		{[]string{"HGET", "user:{7}", "username"}, true},
		{[]string{"HMGET", "user:{7}", "username"}, false}, // the master re-read
		{[]string{"HGET", "user:{7}", "auth"}, false},
		{[]string{"HGET", "sessions:{7}", "4f53cda18c2baa0c0354bb5f9a3ecbe5ed12ab4d8e11ba873c2f11161202b945"}, false},
		{[]string{"LRANGE", "posts:{7}", "0", "9"}, false},
	} {
		if got := kernel.ReadFromReplica(c.B().Arbitrary(tc.cmd...).Build()); got != tc.want {
			t.Errorf("ReadFromReplica(%v) = %v; want %v", tc.cmd, got, tc.want)
		}
	}
}
