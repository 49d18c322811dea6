package kernel_test

import (
	"testing"
	"time"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis/internal/redisconn"
	"github.com/retwis/retwis/internal/store/kernel"
	"github.com/retwis/retwis/internal/store/schema"
	"github.com/retwis/retwis/internal/testkit/must"
	"github.com/retwis/retwis/internal/testkit/redistest"
)

// memoDB returns a DB on a fresh Redis whose client reports its
// invalidations to the DB's Memos, and another client of the Redis.
func memoDB(t *testing.T) (*kernel.DB, rueidis.Client) {
	t.Helper()
	url := redistest.Start(t).URL
	inv := new(kernel.Invalidations)
	c := must.Value(redisconn.DialWith(url, redisconn.Options{Invalidations: inv}))(t)
	db := must.Value(kernel.New(c, kernel.Options{Invalidations: inv}))(t)
	t.Cleanup(db.Close)
	other := must.Value(redisconn.Dial(url))(t)
	t.Cleanup(other.Close)
	return db, other
}

// readName reads user uid's display name through the client-side cache
// and keeps it in m with token, as a store does.
func readName(t *testing.T, db *kernel.DB, m *kernel.Memo[string], uid int64, token uint64) string {
	t.Helper()
	cmd := rueidis.CT(db.C.B().Hget().Key(schema.User(uid)).Field(schema.FieldDisplayName).Cache(), time.Hour)
	name := must.Value(db.CachedMulti(t.Context(), cmd)[0].ToString())(t)
	m.Put(uid, name, token)
	return name
}

// TestMemo: a Memo keeps a value read through the client-side cache
// until Redis invalidates its key (another client changes it); it does
// not keep a value read before an invalidation of its key, nor one of a
// key this server changed a moment ago; it forgets everything when told
// the connection was lost; keys of other kinds leave it be; it keeps at
// most its bound.
func TestMemo(t *testing.T) {
	t.Parallel()
	db, r := memoDB(t)
	m := kernel.NewMemo[string](db, schema.User, schema.UserOf, 2)
	for uid := range int64(4) {
		redistest.Do(t, r, "HSET", schema.User(uid), schema.FieldDisplayName, "name")
	}
	_, token, ok := m.Get(1)
	if ok {
		t.Fatal("an empty memo knows user 1")
	}
	readName(t, db, m, 1, token)
	if name, _, ok := m.Get(1); !ok || name != "name" {
		t.Fatalf("after a read, the memo has %q, %v; want the name", name, ok)
	}
	db.C.Do(t.Context(), db.C.B().Ping().Build()) // any call: the memo is read without one
	redistest.Do(t, r, "HSET", schema.User(1), schema.FieldDisplayName, "renamed")
	deadline := time.Now().Add(5 * time.Second)
	for _, _, ok := m.Get(1); ok; _, _, ok = m.Get(1) {
		if time.Now().After(deadline) {
			t.Fatal("another client changed user 1, and the memo still has the old name after 5 s")
		}
		time.Sleep(time.Millisecond)
	}

	_, token, _ = m.Get(2)
	db.Written.Add(schema.Counts(2)) // another kind's key: no effect
	readName(t, db, m, 2, token)
	if _, _, ok := m.Get(2); !ok {
		t.Fatal("the invalidation of a key of another kind stopped the memo keeping user 2")
	}
	_, token, _ = m.Get(3)
	name := readName(t, db, m, 3, token)
	(&kernel.Invalidations{}).Invalidated(nil) // another DB's: no effect
	if _, _, ok := m.Get(3); !ok || name != "name" {
		t.Fatal("the memo did not keep user 3")
	}

	// A read raced by an invalidation of its key is not kept.
	_, token, _ = m.Get(1)
	db.Written.Add(schema.User(1)) // this server is about to change it
	readName(t, db, m, 1, token)
	if _, _, ok := m.Get(1); ok {
		t.Fatal("the memo kept a value read before its key was invalidated")
	}
	_, token, _ = m.Get(1) // a fresh token, but the key changed a moment ago here
	readName(t, db, m, 1, token)
	if _, _, ok := m.Get(1); ok {
		t.Fatal("the memo kept a value of a key this server changed a moment ago (read untracked)")
	}
	_, token, _ = m.Get(0) // a third value in a memo of two
	readName(t, db, m, 0, token)
	kept := 0
	for uid := range int64(4) {
		if _, _, ok := m.Get(uid); ok {
			kept++
		}
	}
	if _, _, ok := m.Get(0); !ok || kept != 2 {
		t.Fatalf("a memo of at most 2 values, full, given another: keeps %d (the new one: %v); want 2, the new one among them", kept, ok)
	}
}

// TestMemoOff: a Memo of a DB whose client does not report its
// invalidations keeps nothing, nor one whose server keeps no cache for
// the client (Untracked).
func TestMemoOff(t *testing.T) {
	t.Parallel()
	r := redistest.Start(t)
	plain := openDB(t, r.URL, kernel.Options{})
	inv := new(kernel.Invalidations)
	untracked := openDB(t, r.URL, kernel.Options{Invalidations: inv})
	inv.Untracked()
	for name, db := range map[string]*kernel.DB{"no invalidations": plain, "untracked": untracked, "through": untracked.Through(must.Value(redisconn.Dial(r.URL))(t))} {
		m := kernel.NewMemo[string](db, schema.User, schema.UserOf, 10)
		_, token, _ := m.Get(1)
		m.Put(1, "name", token)
		if _, _, ok := m.Get(1); ok {
			t.Errorf("%s: the memo kept a value", name)
		}
	}
}
