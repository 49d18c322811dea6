package load

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis/internal/redisserver"
	"github.com/retwis/retwis/internal/resp"
	"github.com/retwis/retwis/internal/testkit/redistest"
)

// TestLoadCluster loads keys spread over every slot, and hash-tagged
// keys, into a local 3-master cluster, found to be one without --cluster:
// all must be readable through a cluster client, and errors, a MOVED
// among them, must be attributed to the right commands.
func TestLoadCluster(t *testing.T) {
	t.Parallel()
	url := redistest.Cluster(t)
	script := "return redis.call('SET', KEYS[1], 'from a script')"
	movedKey := keyElsewhere(t, url, script)
	var cmds [][]string
	want := map[string]string{}
	for i := 1; i <= 3000; i++ {
		key := "key:" + strconv.Itoa(i)
		cmds = append(cmds, []string{"SET", key, "v" + strconv.Itoa(i)})
		want[key] = "v" + strconv.Itoa(i)
	}
	for i := range 100 {
		tag := fmt.Sprintf("{user%d}", i)
		cmds = append(cmds, []string{"SET", tag + ".name", "n"}, []string{"APPEND", tag + ".name", strconv.Itoa(i)},
			[]string{"SADD", tag + ".followers", "a", "b"})
		want[tag+".name"] = "n" + strconv.Itoa(i)
	}
	// Commands 3301 and 3303 fail on whichever master they land; 3302
	// goes to the master of its second element, the script, which is not
	// that of its key.
	cmds = append(cmds, []string{"LPUSH", "key:17", "x"}, []string{"EVAL", script, "1", movedKey},
		[]string{"HSET", "key:2500", "f", "v"}, []string{"PING"}, []string{"SET", "last", "v"})
	want["last"] = "v"

	rep, errs, err := loadInput(t, resp.Commands(cmds...), Options{URL: url})
	lines := strings.Split(strings.TrimSuffix(errs, "\n"), "\n")
	if rep.Servers != 3 || rep.Replies != 3305 || len(lines) != 3 || err == nil || err.Error() != "3 of 3305 commands failed" {
		t.Fatalf("%v, %+v, error replies:\n%s", err, rep, errs)
	}
	// Replies from different masters interleave: the errors come in any order.
	slices.Sort(lines)
	for i, prefix := range []string{"command 3301: WRONGTYPE ", "command 3302: MOVED ", "command 3303: WRONGTYPE "} {
		if !strings.HasPrefix(lines[i], prefix) {
			t.Fatalf("line %d = %q; want it to start with %q", i+1, lines[i], prefix)
		}
	}
	if !strings.Contains(lines[1], "the cluster was resharded during the load") {
		t.Fatalf("the MOVED error is not explained: %q", lines[1])
	}
	c := newTestClient(t, url)
	for key, v := range want {
		if got, _ := get(t, c, key); got != v {
			t.Fatalf("%s = %q; want %q", key, got, v)
		}
	}
	n, err := c.Do(context.Background(), c.B().Scard().Key("{user42}.followers").Build()).AsInt64()
	if err != nil || n != 2 {
		t.Fatalf("SCARD {user42}.followers = %d, %v", n, err)
	}
}

// keyElsewhere returns a key served by another master than the slot of
// script, so that an EVAL of script on that key, routed by its second
// element, lands on the wrong master.
func keyElsewhere(t *testing.T, url, script string) string {
	t.Helper()
	m := testSlotMap(t, url)
	if len(m.addrs) != 3 {
		t.Fatalf("slot map of %d masters: %v", len(m.addrs), m.addrs)
	}
	for i := 0; ; i++ {
		key := "moved:" + strconv.Itoa(i)
		if m.owner[resp.Slot([]byte(key))] != m.owner[resp.Slot([]byte(script))] {
			return key
		}
	}
}

// TestLoadClusterErrorsInOrder checks the numbering of errors whose
// replies come from three masters interleaved.
func TestLoadClusterErrorsInOrder(t *testing.T) {
	t.Parallel()
	url := redistest.Cluster(t)
	// A string in every slot range, then a failing LPUSH on each of them
	// at known numbers, interleaved with good commands.
	var cmds [][]string
	for i := range 30 {
		cmds = append(cmds, []string{"SET", "s" + strconv.Itoa(i), "v"})
	}
	var want []string
	for i := range 30 {
		cmds = append(cmds, []string{"INCR", "n" + strconv.Itoa(i)}, []string{"LPUSH", "s" + strconv.Itoa(i), "x"})
		want = append(want, fmt.Sprintf("command %d: WRONGTYPE Operation against a key holding the wrong kind of value", len(cmds)))
	}
	rep, errs, err := loadInput(t, resp.Commands(cmds...), Options{URL: url, Cluster: true})
	got := strings.Split(strings.TrimSuffix(errs, "\n"), "\n")
	if err == nil || len(got) != 30 || rep.Errors != 30 || rep.Replies != 90 {
		t.Fatalf("%v, %+v, error replies:\n%s", err, rep, errs)
	}
	// Replies of different masters interleave: compare as sets.
	seen := map[string]bool{}
	for _, l := range got {
		seen[l] = true
	}
	for _, w := range want {
		if !seen[w] {
			t.Fatalf("missing %q in:\n%s", w, errs)
		}
	}
}

// TestLoadClusterConnectionDrop stops one master of three mid-way: the
// acknowledged count N must be such that commands 1..N all got replies,
// whichever master they went to, so every key up to N on the masters
// still up must be there.
func TestLoadClusterConnectionDrop(t *testing.T) {
	t.Parallel()
	dir, err := os.MkdirTemp("", "rtwc")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	cluster, err := redisserver.StartCluster(context.Background(), dir, 3)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cluster.Stop)
	url := "redis://" + cluster.Addrs()[0]
	owner := slotOwners(t, url)
	dead := cluster.Addrs()[1]
	acked := int(loadUntilStopped(t, url, func() { cluster.Nodes[1].Stop() }).Acknowledged)

	clients := map[string]rueidis.Client{}
	for _, addr := range cluster.Addrs() {
		if addr != dead {
			c, err := rueidis.NewClient(rueidis.ClientOption{InitAddress: []string{addr}, ForceSingleClient: true, DisableCache: true})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			clients[addr] = c
		}
	}
	checked := 0
	for i := 1; i <= acked; i++ {
		key := "drop:" + strconv.Itoa(i)
		c, ok := clients[owner(key)]
		if !ok {
			continue
		}
		if i%97 != 0 && i != acked && checked > 0 {
			continue // a sample is enough
		}
		v, err := c.Do(context.Background(), c.B().Get().Key(key).Build()).ToString()
		if err != nil || v != "v" {
			t.Fatalf("%s, acknowledged, is %q, %v on %s", key, v, err, owner(key))
		}
		checked++
	}
	if checked < 10 {
		t.Fatalf("only %d keys checked", checked)
	}
}

// slotOwners returns a function giving the address of the master of a
// key, from the cluster's slot map.
func slotOwners(t *testing.T, url string) func(key string) string {
	t.Helper()
	m := testSlotMap(t, url)
	return func(key string) string { return m.addrs[m.owner[resp.Slot([]byte(key))]] }
}

// testSlotMap reads the slot map of the cluster at url.
func testSlotMap(t *testing.T, url string) *slotMap {
	t.Helper()
	target, err := parseTarget(url)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := target.dial(context.Background(), "tcp", target.addrs[0], 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	m, err := readSlotMap(conn, "127.0.0.1", 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestLoadClusterSeeds loads into a cluster named by several seed nodes,
// the first of them dead: the first that answers is used.
func TestLoadClusterSeeds(t *testing.T) {
	t.Parallel()
	url := redistest.Cluster(t)
	seeds := "redis://127.0.0.1:1," + strings.TrimPrefix(url, "redis://")
	var cmds [][]string
	for i := range 500 {
		cmds = append(cmds, []string{"SET", "seeded:" + strconv.Itoa(i), "v"})
	}
	rep, errs, err := loadInput(t, resp.Commands(cmds...), Options{URL: seeds})
	if err != nil || rep.Servers != 3 || rep.Replies != 500 {
		t.Fatalf("%v, %+v, error replies:\n%s", err, rep, errs)
	}
	if _, err := parseTarget("redis://a:1,b:2,c:3/0"); err != nil {
		t.Fatalf("seed list refused: %v", err)
	}
}
