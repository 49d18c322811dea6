package push_test

import (
	"encoding/base64"
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/store"
	"github.com/retwis/retwis/internal/store/kernel"
	pushstore "github.com/retwis/retwis/internal/store/push"
	"github.com/retwis/retwis/internal/store/schema"
	"github.com/retwis/retwis/internal/testkit/redistest"
	"github.com/retwis/retwis/internal/testkit/storetest"
)

// benchUsers is how many subscribed users the pushes of the benchmark go
// to, round robin: they spread over the push queue's streams.
const benchUsers = 32

// BenchmarkPushDelivery measures the push worker: b.N push jobs (follow
// notifications of benchUsers subscribed users) recorded at once, then
// sent, encrypted and signed, to a push service on this machine over
// TLS. It reports pushes/s, the process's CPU time per push (see
// cpuTime) and the Redis round trips per push (the
// queue's reads and acknowledgements; the subscriptions and the actor
// come from the client-side cache). Run with scripts/bench-push.sh.
func BenchmarkPushDelivery(b *testing.B) {
	e := start(b, redistest.Start(b).URL)
	_, bobTok := e.User("bob")
	bob, err := e.Store.UserByName(b.Context(), "bob")
	if err != nil || bobTok == "" {
		b.Fatal(err)
	}
	// The subscriptions are made through another server's store, so
	// that the worker's reads of them are not the reads of its own
	// fresh writes, which skip the client-side cache for a few seconds:
	// the steady state.
	subs := pushstore.New(storetest.Open(b, e.RedisURL, store.Options{}), pushstore.Options{AllowHTTP: true})
	users := make([]int64, benchUsers)
	for i := range users {
		u, tok := e.User(fmt.Sprintf("user%d", i), "read", "push")
		tokens, err := e.Store.Tokens(b.Context(), u.ID)
		if err != nil {
			b.Fatal(err)
		}
		d := newDevice(b)
		_, err = subs.Subscribe(b.Context(), retwis.Token{ID: tokens[0].ID, User: u}, tok, pushstore.Subscription{
			Endpoint: e.rec.srv.URL + "/push", P256dh: p256dh(b, d), Auth: base64.RawURLEncoding.EncodeToString(d.auth),
			Alerts: map[string]bool{"follow": true}})
		if err != nil {
			b.Fatal(err)
		}
		users[i] = u.ID
	}
	b.ResetTimer()
	calls := e.Calls.Calls.Load()
	cpu0 := cpuTime(b)
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
	b.ReportMetric(float64((cpuTime(b)-cpu0).Microseconds())/float64(b.N), "cpu-µs/push")
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "pushes/s")
	b.ReportMetric(float64(e.Calls.Calls.Load()-calls)/float64(b.N), "roundtrips/push")
}

// cpuTime is the CPU time this process used so far (user and system):
// the worker's, the test server's and the push service's (its TLS, no
// decryption), which a busy machine's other processes do not inflate as
// they do the elapsed time.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
