package media

import (
	"context"
	"time"
)

// sweepBatch is how many due media one step of Sweep looks at;
// sweepSteps bounds the steps of one call.
const (
	sweepBatch = 100
	sweepSteps = 20
)

// Sweep removes the files and then the records of the media due by now
// that nothing uses any longer (uploads never attached within a day, the
// media of deleted posts, replaced avatars and headers, the accounts
// deleted), and lets go of those still used; it returns how many it
// removed. It looks at most at a few thousand per call (upkeep calls it
// every round); a media whose files cannot be removed stays due.
func (m *Service) Sweep(ctx context.Context, now time.Time) (int, error) {
	removed := 0
	for range sweepSteps {
		vs, err := m.st.Due(ctx, now, sweepBatch)
		if err != nil || len(vs) == 0 {
			return removed, err
		}
		settled := vs[:0]
		for _, v := range vs {
			if v.Remove {
				if err := m.blobs.Delete(ctx, v.Prefix); err != nil {
					m.opts.Log.Warn("removing a media's files (tried again next round)", "prefix", v.Prefix, "err", err)
					continue
				}
				removed++
			}
			settled = append(settled, v)
		}
		if err := m.st.Settle(ctx, settled); err != nil {
			return removed, err
		}
		if len(vs) < sweepBatch || len(settled) == 0 {
			return removed, nil
		}
	}
	return removed, nil
}
