package upkeep

import (
	"context"
	"errors"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis/internal/store/schema"
)

// The bounds of a round's trim of the home timelines' histories.
const (
	// historyWalk is about how many archives a round looks at.
	historyWalk = 5000
	// historyChunks is how many chunks a round drops at most (100,000
	// post ids at the default chunk of 200), historyStep of them a
	// script call, so that no call holds Redis for long.
	historyChunks = 500
	historyStep   = 50
)

// errHistoryBudget stops a walk whose round has dropped historyChunks:
// its cursor stays before the step it was on, which the next round
// takes again.
var errHistoryBudget = errors.New("upkeep: the round's trimming is done")

// trimHistories trims the archives of home timelines to the history
// Options.HomeHistory keeps, dropping their oldest chunks, in bounded
// work a round: it walks at most about historyWalk archives from the
// cursors of schema.HistoryTrimState and drops at most historyChunks
// chunks, and begins a new walk once one has ended, so that archives
// that grew since are trimmed at the next. It returns how many post ids
// went.
func (s keeper) trimHistories(ctx context.Context) (int, error) {
	if s.Opts.HomeHistory <= 0 {
		return 0, nil
	}
	dropped, budget := 0, historyChunks
	done, err := s.Walk(ctx, schema.HistoryTrimState, schema.ArchiveKeys, "zset", historyWalk, func(keys []string) error {
		uids, res := s.ReadEach(ctx, keys, schema.ArchiveOf, func(k string) rueidis.Completed {
			return s.C.B().Zcard().Key(k).Build()
		})
		for i, r := range res {
			n, err := r.AsInt64()
			if err != nil {
				return s.Wrap("trim histories: count chunks", err)
			}
			for n > int64(s.HistoryChunks()) {
				if budget <= 0 {
					return errHistoryBudget
				}
				chunks, ids, err := s.TrimHistory(ctx, uids[i], min(budget, historyStep))
				if err != nil {
					return err
				}
				if chunks == 0 {
					break // trimmed meanwhile
				}
				n, budget, dropped = n-chunks, budget-int(chunks), dropped+int(ids)
			}
		}
		return nil
	})
	switch {
	case errors.Is(err, errHistoryBudget):
		return dropped, nil
	case err != nil:
		return dropped, err
	case done: // the next round walks again
		if err := s.C.Do(ctx, s.C.B().Del().Key(schema.HistoryTrimState).Build()).Error(); err != nil {
			return dropped, s.Wrap("trim histories: end the walk", err)
		}
	}
	return dropped, nil
}
