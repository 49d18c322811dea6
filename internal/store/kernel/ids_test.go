package kernel_test

import (
	"context"
	"testing"
	"time"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/snowflake"
	"github.com/retwis/retwis/internal/store/kernel"
	"github.com/retwis/retwis/internal/testkit/must"
)

// TestRefusedRecordsNotTakenBack: a record whose write a real Redis
// refused (a master short of replicas) was never written, so CreateHash
// gives its ids up without taking anything back; one whose answer was
// lost is (the store's TestLostAnswerLeavesNoPost).
func TestRefusedRecordsNotTakenBack(t *testing.T) {
	t.Parallel()
	url, _, _ := configured("min-replicas-to-write", "1")(t)
	db := openDB(t, url, kernel.Options{IDs: must.Value(snowflake.New(1))(t), CommandTimeout: 500 * time.Millisecond})
	var abandoned []int64
	_, err := db.CreateHash(t.Context(), 0, "next_record_id", func(n int64) string { return "record:" + kernel.ID(n) },
		func(_ context.Context, n int64) error { abandoned = append(abandoned, n); return nil }, "field", "value")
	if retwis.ErrorKind(err) != retwis.Unavailable {
		t.Fatalf("CreateHash on a master short of replicas: %v; want unavailable", err)
	}
	if len(abandoned) > 0 {
		t.Errorf("ids %v recorded to be taken back; want none: their writes were refused", abandoned)
	}
}
