package kernel

import (
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/retwis/retwis/internal/redisconn"
	"github.com/retwis/retwis/internal/store/schema"
	"github.com/retwis/retwis/internal/testkit/must"
	"github.com/retwis/retwis/internal/testkit/redistest"
)

// cluster is the 3-master cluster that this package's tests take turns
// on.
var cluster redistest.SharedCluster

func TestMain(m *testing.M) { os.Exit(cluster.Run(m)) }

// modelHome is a brute-force model of a home timeline: the set of its
// ids, of which the archived ones are the oldest.
type modelHome struct {
	ids      []int64 // descending
	archived int
}

// deliver applies one delivery of ids, as a whole, as push_ids and
// fix_ids define it: an id there already is ignored, one older than the
// whole archive dropped, one older than the archive's newest goes into
// the archive, any other into the list; then chunks move to the archive
// while the list holds more than keep+chunk.
func (m *modelHome) deliver(ids []int64, keep, chunk int) {
	for _, x := range ids {
		if slices.Contains(m.ids, x) {
			continue
		}
		if m.archived > 0 {
			arch := m.ids[len(m.ids)-m.archived:]
			if x < arch[len(arch)-1] {
				continue
			}
			if x < arch[0] {
				m.archived++
			}
		}
		m.ids = append(m.ids, x)
		slices.SortFunc(m.ids, func(a, b int64) int { return int(b - a) })
	}
	for len(m.ids)-m.archived > keep+chunk {
		m.archived += chunk
	}
}

// readHome returns uid's whole timeline, newest first, and its list's
// length.
func readHome(t *testing.T, db *DB, uid int64) ([]int64, int) {
	t.Helper()
	tl := testTimeline{list: schema.Home(uid), idx: schema.Archive(uid), prefix: schema.ArchivePrefix(uid),
		keep: db.Opts.HomeCap, chunk: db.Opts.ArchiveChunk}
	return tl.read(t, db.C)
}

// deliverDatabases runs test on one Redis and on the shared cluster.
func deliverDatabases(t *testing.T, test func(t *testing.T, db *DB)) {
	for _, name := range []string{"redis", "cluster"} {
		t.Run(name, func(t *testing.T) {
			url := ""
			if name == "redis" {
				url = redistest.Start(t).URL
			} else {
				url = cluster.URL(t)
			}
			c := must.Value(redisconn.Dial(url))(t)
			db := must.Value(New(c, Options{HomeCap: 6, ArchiveChunk: 3}))(t)
			t.Cleanup(db.Close)
			must.OK(t, db.LoadScripts(t.Context()))
			test(t, db)
		})
	}
}

// TestDeliverMatchesModel delivers random ids, with repeats, in random
// order and random groups, to a few owners, through Deliver (its fast
// path when the ids are newer than the head, its late path otherwise)
// and, for some calls, as a delivery that raced another does: a blind
// LPUSH followed by FixIDs, or by nothing (the attempt failed) and then
// Redeliver. After every call each owner's timeline
// (list and archive) must be exactly the model's, descending without
// repeats, its list within the cap; an owner away since before the
// horizon must get nothing and not be reported reached.
func TestDeliverMatchesModel(t *testing.T) {
	deliverDatabases(t, func(t *testing.T, db *DB) {
		ctx := t.Context()
		rng := rand.New(rand.NewPCG(24, 1))
		owners := []int64{11, 12, 13, 14, 15}
		away := int64(16)
		horizon := time.Now().Unix()
		redistest.Do(t, db.C, "HSET", schema.User(away), schema.FieldSeen, strconv.FormatInt(horizon-100, 10))
		redistest.Do(t, db.C, "HSET", schema.User(owners[0]), schema.FieldSeen, strconv.FormatInt(horizon+100, 10))
		model := map[int64]*modelHome{}
		for _, o := range owners {
			model[o] = &modelHome{}
		}
		keep, chunk := db.Opts.HomeCap, db.Opts.ArchiveChunk
		var fast, late, raced int
		for step := range 200 {
			ds := []Delivery{{UID: away, IDs: []int64{int64(1 + rng.IntN(300))}}}
			for _, o := range owners {
				if rng.IntN(3) == 0 {
					continue
				}
				base, late := int64(4*step), rng.IntN(2) == 0 // new ids are above every earlier step's
				ids := make([]int64, 1+rng.IntN(4))
				for i := range ids {
					if ids[i] = base + 1 + rng.Int64N(4); late {
						ids[i] = 1 + rng.Int64N(base+4) // any, often there already
					}
				}
				ds = append(ds, Delivery{UID: o, IDs: ids})
			}
			for _, d := range ds[1:] {
				head := int64(0)
				if m := model[d.UID]; len(m.ids) > 0 {
					head = m.ids[0]
				}
				if slices.Min(d.IDs) > head {
					fast++
				} else {
					late++
				}
				model[d.UID].deliver(d.IDs, keep, chunk)
			}
			switch rng.IntN(8) {
			case 0, 1: // as if each had raced another delivery
				for _, d := range sortedDeliveries(ds[1:]) {
					redistest.Do(t, db.C, append([]string{"LPUSH", schema.Home(d.UID)}, IDs(d.IDs)...)...)
					must.OK(t, db.C.Do(ctx, db.fixHomeCmd(d.UID, d.IDs)).Error())
					raced++
				}
			case 2: // as if it had raced and failed before FixIDs, then was tried again
				for _, d := range sortedDeliveries(ds[1:]) {
					redistest.Do(t, db.C, append([]string{"LPUSH", schema.Home(d.UID)}, IDs(d.IDs)...)...)
					raced++
				}
				reached := must.Value(db.Redeliver(ctx, horizon, ds))(t)
				if want := append([]bool{false}, slices.Repeat([]bool{true}, len(ds)-1)...); !slices.Equal(reached, want) {
					t.Fatalf("step %d: redelivery reached %v; want %v", step, reached, want)
				}
			default:
				reached := must.Value(db.Deliver(ctx, horizon, ds))(t)
				if want := append([]bool{false}, slices.Repeat([]bool{true}, len(ds)-1)...); !slices.Equal(reached, want) {
					t.Fatalf("step %d: reached %v; want %v", step, reached, want)
				}
			}
			for _, o := range append(owners, away) {
				all, listLen := readHome(t, db, o)
				want := []int64(nil)
				if m := model[o]; m != nil {
					want = m.ids
					if listLen != len(m.ids)-m.archived {
						t.Fatalf("step %d: owner %d's list holds %d of %v; want %d", step, o, listLen, all, len(m.ids)-m.archived)
					}
				}
				if !slices.Equal(all, want) {
					t.Fatalf("step %d: owner %d's timeline = %v; want %v", step, o, all, want)
				}
			}
		}
		if fast < 100 || late < 100 || raced < 50 || model[owners[0]].archived < 30 {
			t.Fatalf("too few cases: %d fast, %d late, %d raced deliveries, %d archived", fast, late, raced, model[owners[0]].archived)
		}
	})
}

// TestDeliverConcurrently delivers the ids 1..n to a few owners from
// several goroutines at once, each in its own random order, so that
// pushes race: every timeline must end up holding every id once, in
// order (the cap is large enough that nothing is archived).
func TestDeliverConcurrently(t *testing.T) {
	deliverDatabases(t, func(t *testing.T, db *DB) {
		db.Opts.HomeCap, db.Opts.ArchiveChunk = 1000, 100
		const n, workers = 120, 6
		owners := []int64{21, 22, 23}
		var wg sync.WaitGroup
		for w := range workers {
			wg.Go(func() {
				rng := rand.New(rand.NewPCG(uint64(w), 7))
				ids := make([]int64, n)
				for i := range ids {
					ids[i] = int64(i + 1)
				}
				rng.Shuffle(n, func(i, j int) { ids[i], ids[j] = ids[j], ids[i] })
				for _, id := range ids {
					ds := make([]Delivery, len(owners))
					for i, o := range owners {
						ds[i] = Delivery{UID: o, IDs: []int64{id}}
					}
					if _, err := db.Deliver(t.Context(), 0, ds); err != nil {
						t.Error(err)
						return
					}
				}
			})
		}
		wg.Wait()
		want := make([]int64, n)
		for i := range want {
			want[i] = int64(n - i)
		}
		for _, o := range owners {
			if all, _ := readHome(t, db, o); !slices.Equal(all, want) {
				t.Errorf("owner %d: timeline = %v; want %v", o, all, want)
			}
		}
	})
}

func (m modelHome) String() string { return fmt.Sprint(m.ids, m.archived) }
