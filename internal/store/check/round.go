package check

import (
	"context"
	"slices"

	"github.com/retwis/retwis/internal/redisconn"
	"github.com/retwis/retwis/internal/store"
	"github.com/retwis/retwis/internal/store/schema"
)

// backgroundCheckBudget is how many keys a round of maintenance checks.
const backgroundCheckBudget = 2000

// Round checks, and repairs, the next backgroundCheckBudget keys of the
// next kind of index of the rotation (schema.CheckRotation, the seed's
// list rotated with LMOVE: each round takes its head to its tail), and
// logs what it repaired. Each kind keeps its own progress, so the
// rotation walks every kind to its end, a round at a time, and starts
// over. It returns how many keys it walked and problems it fixed. The
// maintenance round (upkeep.Round) runs it last, under the maintenance
// lock.
func Round(ctx context.Context, st *store.Store) (walked, repaired int, err error) {
	s := checker{st}
	kind, err := s.nextToCheck(ctx)
	if err != nil {
		return 0, 0, err
	}
	rep, err := Run(ctx, st, Options{Repair: true, Kinds: []string{kind}, Scope: "background", Budget: backgroundCheckBudget})
	for _, p := range rep.Problems {
		s.Log.Warn("the background check repaired an index", "kind", p.Kind, "problem", p.What, "count", p.Repaired, "examples", p.Examples)
		repaired += int(p.Repaired)
	}
	return int(rep.Keys), repaired, err
}

// nextToCheck rotates the list of kinds to check, and returns the one
// it moved; it writes the list first if it is missing or out of date
// (a kind added by an upgrade).
func (s checker) nextToCheck(ctx context.Context) (string, error) {
	b := s.C.B()
	kinds := Kinds()
	listed, err := s.C.Do(ctx, b.Lrange().Key(schema.CheckRotation).Start(0).Stop(-1).Build()).AsStrSlice()
	if err != nil {
		return "", s.Wrap("maintenance: check rotation", err)
	}
	if slices.Sort(listed); !slices.Equal(listed, slices.Sorted(slices.Values(kinds))) {
		err := redisconn.FirstErr(s.C.DoMulti(ctx, b.Del().Key(schema.CheckRotation).Build(),
			b.Rpush().Key(schema.CheckRotation).Element(kinds...).Build()))
		if err != nil {
			return "", s.Wrap("maintenance: check rotation", err)
		}
	}
	kind, err := s.C.Do(ctx, b.Lmove().Source(schema.CheckRotation).Destination(schema.CheckRotation).Left().Right().Build()).ToString()
	return kind, s.Wrap("maintenance: check rotation", err)
}
