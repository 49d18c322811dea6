package kernel

import (
	"strconv"
	"strings"
	"testing"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis/internal/redisconn"
	"github.com/retwis/retwis/internal/store/schema"
	"github.com/retwis/retwis/internal/testkit/must"
	"github.com/retwis/retwis/internal/testkit/redistest"
)

// BenchmarkDeliver measures what Redis spends fanning posts out to 53
// followers (the issue 24 posting load), one post after another, each
// newer than every timeline's head: with one push_ids script call per
// follower (DeliverCmd in one pipeline, as delivery did before issue 24)
// and with Deliver (plain commands). Besides ns/op (one post), it
// reports redis-server's own CPU time (used_cpu_user + used_cpu_sys of
// INFO cpu, so parsing and replies count too) per timeline entry:
//
//	go test ./internal/store/kernel -run '^$' -bench Deliver -count 5
func BenchmarkDeliver(b *testing.B) {
	const followers = 53
	for _, bc := range []struct {
		name string
		push func(db *DB, post int64, uids []int64) error
	}{
		{"script-per-follower", func(db *DB, post int64, uids []int64) error {
			return redisconn.FirstErr(db.Pipeline(b.Context(), func() rueidis.Commands {
				cmds := make(rueidis.Commands, len(uids))
				for i, u := range uids {
					cmds[i] = db.DeliverCmd(u, 0, post)
				}
				return cmds
			}))
		}},
		{"plain", func(db *DB, post int64, uids []int64) error {
			ds := make([]Delivery, len(uids))
			for i, u := range uids {
				ds[i] = Delivery{UID: u, IDs: []int64{post}}
			}
			_, err := db.Deliver(b.Context(), 0, ds)
			return err
		}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			c := must.Value(redisconn.Dial(redistest.Start(b).URL))(b)
			db := must.Value(New(c, Options{}))(b)
			defer db.Close()
			must.OK(b, db.LoadScripts(b.Context()))
			uids := make([]int64, followers)
			for i := range uids {
				uids[i] = int64(i + 1)
				redistest.Do(b, c, "HSET", schema.User(uids[i]), schema.FieldSeen, "1")
			}
			before := redisCPU(b, c)
			b.ResetTimer()
			for i := range b.N {
				if err := bc.push(db, int64(i+1), uids); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			b.ReportMetric((redisCPU(b, c)-before)*1e6/float64(b.N*followers), "redis-µs/entry")
		})
	}
}

// redisCPU returns the CPU time (s) redis-server has used, user and
// system.
func redisCPU(b *testing.B, c rueidis.Client) float64 {
	info := must.Value(c.Do(b.Context(), c.B().Info().Section("cpu").Build()).ToString())(b)
	var s float64
	for line := range strings.Lines(info) {
		k, v, _ := strings.Cut(strings.TrimSpace(line), ":")
		if k == "used_cpu_user" || k == "used_cpu_sys" {
			s += must.Value(strconv.ParseFloat(v, 64))(b)
		}
	}
	return s
}
