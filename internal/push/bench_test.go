package push_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/mattn/go-mastodon"

	"github.com/retwis/retwis/internal/store/kernel"
	"github.com/retwis/retwis/internal/store/schema"
	"github.com/retwis/retwis/internal/testkit/redistest"
)

// benchUsers is how many subscribed users the pushes of the benchmark go
// to, round robin: they spread over the push queue's streams.
const benchUsers = 32

// BenchmarkPushDelivery measures the push worker: b.N push jobs (follow
// notifications of benchUsers subscribed users) recorded at once, then
// sent, encrypted and signed, to a push service on this machine over
// TLS. It reports pushes/s and the worker's Redis round trips per push
// (the queue's reads and acknowledgements, the subscriptions, the
// actor). Run with scripts/bench-push.sh.
func BenchmarkPushDelivery(b *testing.B) {
	e := start(b, redistest.Start(b).URL)
	_, bobTok := e.User("bob")
	bob, err := e.Store.UserByName(b.Context(), "bob")
	if err != nil || bobTok == "" {
		b.Fatal(err)
	}
	users := make([]int64, benchUsers)
	for i := range users {
		u, tok := e.User(fmt.Sprintf("user%d", i), "read", "push")
		e.subscribe(b, tok, newDevice(b), mastodon.PushAlerts{Follow: on(true)})
		users[i] = u.ID
	}
	b.ResetTimer()
	calls := e.Calls.Calls.Load()
	start := time.Now()
	notes := make([]kernel.Notified, b.N)
	for i := range notes {
		notes[i] = kernel.Notified{User: users[i%benchUsers], Note: schema.Note(schema.NoteFollow, bob.ID, 0), At: time.Now().UnixMilli()}
	}
	e.Store.Push(b.Context(), notes...) // two round trips, counted too
	for range b.N {
		e.rec.next(b)
	}
	elapsed := time.Since(start)
	b.StopTimer()
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "pushes/s")
	b.ReportMetric(float64(e.Calls.Calls.Load()-calls)/float64(b.N), "roundtrips/push")
}
