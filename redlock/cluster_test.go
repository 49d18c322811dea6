package redlock_test

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis/internal/redisconn"
	"github.com/retwis/retwis/internal/redisserver"
	"github.com/retwis/retwis/internal/testkit/must"
	"github.com/retwis/retwis/internal/testkit/redistest"
	"github.com/retwis/retwis/redlock"
)

// TestOnClusterFailover takes a lock on a cluster of three masters, each
// with a replica: its nine keys are three on each master, so it is held
// on every master. A master is killed and its replica, promoted, lacks
// the keys (the worst case of asynchronous replication, made sure of by
// deleting them there): the holder still has six of nine, so a second
// client cannot take the lock while it is valid, and the holder's next
// extension puts the lost keys back on the new master. A lock taken
// through the same cluster client as one instance (New with one URL of
// the cluster) is one key on one master, and the same failover lets a
// second holder in while the first is valid: the hazard NewOnCluster
// removes.
func TestOnClusterFailover(t *testing.T) {
	t.Parallel()
	c := redistest.ReplicatedCluster(t)
	client := must.Value(redisconn.Dial("redis://" + strings.Join(c.Addrs(), ",")))(t)
	defer client.Close()
	opts := redlock.Options{InstanceTimeout: 500 * time.Millisecond, MaxExtensions: -1}
	holder := must.Value(redlock.NewOnCluster(client, redlock.DefaultClusterKeys, opts))(t)
	other := must.Value(redlock.NewOnCluster(client, redlock.DefaultClusterKeys, opts))(t)
	const ttl = 20 * time.Second // longer than the failover, which the lock outlives
	l := must.Value(holder.Lock(t.Context(), "upkeep", ttl))(t)
	masters := c.Masters(t.Context())
	for _, m := range masters {
		if keys, _ := lockKeys(t, client, m); len(keys) != 3 {
			t.Fatalf("master %s holds %v of the lock's keys; want 3 on each of the 3 masters", m.Addr(), keys)
		}
	}
	single := must.Value(redlock.NewFromClients([]rueidis.Client{client}, opts))(t)
	must.Value(single.Lock(t.Context(), "upkeep", ttl))(t) // the key "upkeep", on one master
	victim := masters[0]
	for _, m := range masters {
		if _, held := lockKeys(t, client, m); held {
			victim = m
		}
	}
	victim.Kill()
	must.OK(t, c.WaitFailover(t.Context(), 3, victim))
	var promoted *redisserver.Server
	for _, m := range c.Masters(t.Context(), victim) {
		if !slices.Contains(masters, m) {
			promoted = m
		}
	}
	spread, held := lockKeys(t, client, promoted)
	if held {
		spread = append(spread, "upkeep")
	}
	for _, k := range spread { // the replica had received none of them
		redistest.Do(t, client.Nodes()[promoted.Addr()], "DEL", k)
	}

	if _, err := other.TryLock(t.Context(), "upkeep", ttl); !errors.Is(err, redlock.ErrNotAcquired) {
		t.Fatalf("a second client took the lock after a failover lost a third of it: %v; want ErrNotAcquired", err)
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if _, err := single.TryLock(t.Context(), "upkeep", ttl); err == nil {
			break // the single-instance lock, still valid for its first holder, granted again
		}
		if time.Now().After(deadline) {
			t.Fatal("the single-instance lock was not granted again after the failover lost it; the test shows nothing")
		}
	}
	deadline := time.Now().Add(10 * time.Second)
	for keys, _ := lockKeys(t, client, promoted); len(keys) != 3; keys, _ = lockKeys(t, client, promoted) { // once the client knows the new master
		if err := l.Extend(t.Context(), ttl); err != nil {
			t.Fatalf("extend after the failover: %v", err)
		}
		if time.Now().After(deadline) {
			t.Fatal("the extensions never put the lost keys back on the promoted master")
		}
		time.Sleep(100 * time.Millisecond)
	}
	if _, err := other.TryLock(t.Context(), "upkeep", ttl); !errors.Is(err, redlock.ErrNotAcquired) {
		t.Fatalf("a second client took the held lock: %v; want ErrNotAcquired", err)
	}
	must.OK(t, l.Unlock(t.Context()))
	next := must.Value(other.TryLock(t.Context(), "upkeep", ttl))(t)
	if next.Token() <= l.Token() {
		t.Fatalf("the next holder's token %d is not above the first's, %d", next.Token(), l.Token())
	}
	must.OK(t, next.Unlock(t.Context()))
}

// lockKeys returns the keys of the lock "upkeep" spread over the cluster
// (not its fence counters) on master m, through client's connection to
// it, with the single-instance lock's key "upkeep" if m holds it.
func lockKeys(t *testing.T, client rueidis.Client, m *redisserver.Server) (spread []string, single bool) {
	t.Helper()
	node, ok := client.Nodes()[m.Addr()]
	for deadline := time.Now().Add(10 * time.Second); !ok; node, ok = client.Nodes()[m.Addr()] {
		if time.Now().After(deadline) { // a promoted master is learnt at the next refresh
			t.Fatalf("the client has no connection to %s", m.Addr())
		}
		time.Sleep(50 * time.Millisecond)
	}
	for _, k := range redistest.Strs(t, node, "KEYS", "*upkeep") {
		if k == "upkeep" {
			single = true
		} else {
			spread = append(spread, k)
		}
	}
	return spread, single
}
