package kernel_test

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/snowflake"
	"github.com/retwis/retwis/internal/store/kernel"
	"github.com/retwis/retwis/internal/testkit/must"
	"github.com/retwis/retwis/internal/testkit/redistest"
)

// ids collects the ids CreateHash tries, and those it gives up to be
// taken back.
type ids struct {
	mu               sync.Mutex
	tried, abandoned []string
}

// key is CreateHash's key: it records the id tried.
func (a *ids) key(n int64) string {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.tried = append(a.tried, "record:"+kernel.ID(n))
	return "record:" + kernel.ID(n)
}

// abandon is CreateHash's abandon: it records the id given up.
func (a *ids) abandon(_ context.Context, n int64) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.abandoned = append(a.abandoned, "record:"+kernel.ID(n))
	return nil
}

// createHash runs CreateHash on db with a's key and abandon, and
// returns its error.
func createHash(t *testing.T, db *kernel.DB, a *ids) error {
	_, err := db.CreateHash(t.Context(), 0, "next_record_id", a.key, a.abandon, "field", "value")
	return err
}

// TestRefusedRecordsNotTakenBack: a record whose write a real Redis
// refused (a master short of replicas) was never written, so CreateHash
// gives its ids up without taking anything back.
func TestRefusedRecordsNotTakenBack(t *testing.T) {
	t.Parallel()
	url, _, _ := configured("min-replicas-to-write", "1")(t)
	db := openDB(t, url, kernel.Options{IDs: must.Value(snowflake.New(1))(t), CommandTimeout: 500 * time.Millisecond})
	var a ids
	if err := createHash(t, db, &a); retwis.ErrorKind(err) != retwis.Unavailable {
		t.Fatalf("CreateHash on a master short of replicas: %v; want unavailable", err)
	}
	if len(a.tried) == 0 || len(a.abandoned) > 0 {
		t.Errorf("of the ids tried, %v, %v were recorded to be taken back; want none: their writes were refused", a.tried, a.abandoned)
	}
}

// TestTimedOutRecordsAbandoned: on a frozen Redis each write CreateHash
// sends times out, and may be carried out once Redis goes on, so each id
// it tries is given up to be taken back (abandon) by the caller's
// maintenance. (The store's TestLostAnswerLeavesNoPost has a record
// whose answer was lost on a node that answers taken back at once.)
func TestTimedOutRecordsAbandoned(t *testing.T) {
	t.Parallel()
	r := redistest.Start(t)
	db := openDB(t, r.URL, kernel.Options{IDs: must.Value(snowflake.New(1))(t), CommandTimeout: 200 * time.Millisecond})
	redistest.Do(t, db.C, "PING") // connected before the freeze
	r.Pause(t)
	var a ids
	err := createHash(t, db, &a)
	r.Resume(t)
	if retwis.ErrorKind(err) != retwis.Unavailable {
		t.Fatalf("CreateHash on a frozen Redis: %v; want unavailable", err)
	}
	if len(a.tried) == 0 || !slices.Equal(a.tried, a.abandoned) {
		t.Errorf("ids tried %v, given up to be taken back %v; want all", a.tried, a.abandoned)
	}
}
