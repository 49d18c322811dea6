// Package check is retwis's consistency checker: it walks the derived
// indexes of the database (the followers, the graph, the blocks, the
// posts' indexes, the timelines, the names, the people search, the
// directory, the delivery snapshots), verifies each entry against its
// source of truth, reports what is wrong by kind, and repairs it.
// `retwis check` runs it whole (Run), and the maintenance loop of
// `retwis serve` a budgeted round of one kind at a time (Round).
//
// It is its own package because it is no part of the online API: it
// reads and repairs the store from outside, through the store's exported
// operations, kernel.DB and the key names of schema, and nothing that
// serves a request calls it. What it expects of a post's indexes, the
// graph's edges and the people search comes from package index
// (index.Writes, index.EdgeWrites, index.PeopleWrites), which the
// writers use too, so that the check and the writers cannot disagree.
//
// The arrows point one way: check imports store, never the reverse;
// the maintenance round (package upkeep) runs Round, and `retwis check`
// (cmd/retwis) Run. The kinds, each with its walks over the keys of
// schema and its verification, are listed in checkKinds (kinds.go);
// check.go runs them, round.go is the maintenance's share.
package check

import (
	"cmp"
	"context"
	"slices"
	"time"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis/internal/redisconn"
	"github.com/retwis/retwis/internal/store"
	"github.com/retwis/retwis/internal/store/index"
	"github.com/retwis/retwis/internal/store/schema"
)

// Options are the options of Run.
type Options struct {
	// Repair fixes what the check finds; without it the check writes
	// nothing but its own progress.
	Repair bool
	// Kinds names the kinds of index to check (Kinds); none: all.
	Kinds []string
	// Scope names the progress that the check keeps, so that it resumes
	// where it stopped: `retwis check` and the background check of
	// maintenance keep theirs apart.
	Scope string
	// Restart forgets the progress kept, and starts from the beginning.
	Restart bool
	// Budget bounds how many keys one call walks (0: no bound); the
	// next call goes on from there.
	Budget int
	// Settle is how long a problem must last to count (default 1 s):
	// what a check finds is read again after this pause, so that a
	// write under way (a follow whose second half is on its way) is not
	// taken for damage.
	Settle time.Duration
	// Grace is how old an account without a name must be to be taken for
	// the leftover of a sign-up that crashed (default 10 minutes).
	Grace time.Duration
	// Progress, if set, is told of each batch of keys walked.
	Progress func(Progress)
}

// Progress is how far a check has got.
type Progress struct {
	Kind     string // the kind of index being checked
	Keys     int64  // keys walked so far, of every kind
	Problems int64  // problems found so far
}

// Problem is one kind of inconsistency that a check found: how many, and
// a few examples.
type Problem struct {
	Kind     string // the kind of index (Kinds)
	What     string // what is wrong
	Count    int64
	Examples []string
	Repaired int64 // how many of them were fixed
}

// Report is what a check found.
type Report struct {
	Keys     int64 // keys walked
	Problems []Problem
	// Done reports that every kind was walked to its end; otherwise the
	// next check with the same Scope goes on where this one stopped.
	Done bool
}

// maxExamples is how many examples a Problem keeps.
const maxExamples = 5

// Defaults of Options.
const (
	defaultSettle = time.Second
	defaultGrace  = 10 * time.Minute
)

// finding is one inconsistency: what is wrong, where, found in which of
// the keys walked, and the plain commands (key second) that fix it.
type finding struct {
	what, where, key string
	fix              [][]string
}

// Kinds returns the kinds of index Run knows, in the order it checks
// them.
func Kinds() []string {
	names := make([]string, len(checkKinds))
	for i, k := range checkKinds {
		names[i] = k.name
	}
	return names
}

// Run walks the derived indexes of st's database, verifies each entry against its
// source of truth, and reports what is wrong; with opts.Repair it fixes
// it. It walks with SCAN, every master of a cluster, batch by batch,
// keeping its cursors (per opts.Scope) after each, so that a check
// interrupted resumes; once every kind asked for is walked to its end,
// they are forgotten. Every problem is read twice, opts.Settle apart,
// before it counts: writes of servers under way are not damage. Each fix is one command on one slot,
// idempotent, and made from what the second reading found.
func Run(ctx context.Context, st *store.Store, opts Options) (Report, error) {
	s := checker{st}
	opts.Settle = cmp.Or(opts.Settle, defaultSettle)
	opts.Grace = cmp.Or(opts.Grace, defaultGrace)
	rep := Report{Done: true}
	run := &checkRun{opts: opts, posts: map[int64]bool{}}
	found := map[[2]string]*Problem{}
	var states []string
	for _, kind := range checkKinds {
		if len(opts.Kinds) > 0 && !slices.Contains(opts.Kinds, kind.name) {
			continue
		}
		for i, w := range kind.walks {
			state := schema.CheckState(opts.Scope, kind.name, i)
			if opts.Restart {
				if err := s.C.Do(ctx, s.C.B().Del().Key(state).Build()).Error(); err != nil {
					return rep, s.Wrap("check: progress", err)
				}
			}
			budget := 0
			if opts.Budget > 0 {
				if budget = opts.Budget - int(rep.Keys); budget <= 0 {
					rep.Done = false
					return rep.sorted(found), nil
				}
			}
			done, err := s.Walk(ctx, state, w.pattern, w.keyType, budget, func(keys []string) error {
				err := s.checkBatch(ctx, kind.name, w, keys, run, found)
				rep.Keys += int64(len(keys))
				if opts.Progress != nil {
					opts.Progress(Progress{Kind: kind.name, Keys: rep.Keys, Problems: countOf(found)})
				}
				return err
			})
			if err != nil {
				return rep.sorted(found), err
			}
			rep.Done = rep.Done && done
			states = append(states, state)
		}
	}
	if rep.Done { // the next check starts from the beginning
		dels := make(rueidis.Commands, len(states))
		for i, k := range states {
			dels[i] = s.C.B().Del().Key(k).Build() // one slot each
		}
		if err := redisconn.FirstErr(s.C.DoMulti(ctx, dels...)); err != nil {
			return rep.sorted(found), s.Wrap("check: progress", err)
		}
	}
	return rep.sorted(found), nil
}

// checkBatch checks keys with w, confirms what it finds after the
// settling pause, repairs it if asked, and adds it to found.
func (s checker) checkBatch(ctx context.Context, kind string, w checkWalk, keys []string, run *checkRun,
	found map[[2]string]*Problem) error {
	first, err := w.verify(s, ctx, keys, run)
	if err != nil || len(first) == 0 {
		return err
	}
	if err := sleep(ctx, run.opts.Settle); err != nil {
		return err
	}
	suspects, reread := map[string]bool{}, map[string]bool{}
	var again []string
	for _, f := range first {
		suspects[f.what+"\x00"+f.where] = true
		if !reread[f.key] { // only the keys with a finding are read again
			reread[f.key], again = true, append(again, f.key)
		}
	}
	second, err := w.verify(s, ctx, again, run)
	if err != nil {
		return err
	}
	var fixes [][]string
	for _, f := range second {
		if !suspects[f.what+"\x00"+f.where] {
			continue // new since the first reading: the next check will see if it lasts
		}
		p := found[[2]string{kind, f.what}]
		if p == nil {
			p = &Problem{Kind: kind, What: f.what}
			found[[2]string{kind, f.what}] = p
		}
		p.Count++
		if len(p.Examples) < maxExamples {
			p.Examples = append(p.Examples, f.where)
		}
		if run.opts.Repair && len(f.fix) > 0 {
			fixes = append(fixes, f.fix...)
			p.Repaired++
		}
	}
	if len(fixes) == 0 {
		return nil
	}
	err = redisconn.FirstErr(s.Pipeline(ctx, func() rueidis.Commands { return index.Commands(s.C, fixes) }))
	return s.Wrap("check: repair", err)
}

// countOf counts the problems of found.
func countOf(found map[[2]string]*Problem) int64 {
	var n int64
	for _, p := range found {
		n += p.Count
	}
	return n
}

// sorted returns rep with the problems of found, by kind and what.
func (rep Report) sorted(found map[[2]string]*Problem) Report {
	rep.Problems = rep.Problems[:0]
	for _, p := range found {
		rep.Problems = append(rep.Problems, *p)
	}
	kinds := Kinds()
	slices.SortFunc(rep.Problems, func(a, b Problem) int {
		return cmp.Or(cmp.Compare(slices.Index(kinds, a.Kind), slices.Index(kinds, b.Kind)), cmp.Compare(a.What, b.What))
	})
	return rep
}

// sleep pauses for d, or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return context.Cause(ctx)
	case <-t.C:
		return nil
	}
}
