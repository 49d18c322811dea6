package interact

import (
	"context"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/store/kernel"
	"github.com/retwis/retwis/internal/store/schema"
)

// pins are the pins' marks, pins:{<uid>}: at most schema.MaxPins of the
// user's own posts, shown at the top of their profile.
var pins = markKind{
	key:   schema.Pins,
	mark:  func(p *retwis.Post) *bool { return &p.Pinned },
	check: mayPin,
}

// mayPin refuses a pin of another's post, and a new pin of a user who
// has schema.MaxPins already (counted through the client-side cache).
func mayPin(ctx context.Context, s *Store, uid int64, p retwis.Post) error {
	if p.AuthorID != uid {
		return retwis.Errorf(retwis.Invalid, "You can pin only your own posts.")
	}
	if p.Pinned {
		return nil
	}
	n, err := s.Cached(ctx, s.C.B().Zcard().Key(schema.Pins(uid)).Cache(), s.Opts.CacheTTL).AsInt64()
	if err != nil && !rueidis.IsRedisNil(err) {
		return s.Wrap("pin: count", err)
	}
	if n >= schema.MaxPins {
		return retwis.Errorf(retwis.Invalid, "You have pinned %d posts, the most you may. Unpin one to pin this one.", schema.MaxPins)
	}
	return nil
}

// Pin pins post pid, which must be uid's own, to the top of uid's
// profile, and returns it as uid sees it then.
func (s *Store) Pin(ctx context.Context, uid, pid int64) (retwis.Post, error) {
	return s.setMark(ctx, pins, uid, pid, true)
}

// Unpin takes post pid off the top of uid's profile.
func (s *Store) Unpin(ctx context.Context, uid, pid int64) (retwis.Post, error) {
	return s.setMark(ctx, pins, uid, pid, false)
}

// Pinned returns the posts uid pinned, the newest pin first, as viewer
// sees them.
func (s *Store) Pinned(ctx context.Context, viewer, uid int64) ([]retwis.Post, error) {
	page, err := s.markedPosts(ctx, pins, viewer, uid, retwis.Cursor{}, schema.MaxPins)
	return page.Posts, err
}

// StartPins adds to b the cached read of the posts uid pinned.
func (s *Store) StartPins(uid int64, b *kernel.Batch) kernel.Slot {
	return b.Add(rueidis.CT(s.C.B().Zrevrange().Key(schema.Pins(uid)).Start(0).Stop(schema.MaxPins-1).Cache(), s.Opts.CacheTTL))
}

// PinnedPosts reads the posts whose ids read, a slot of StartPins,
// holds, as viewer sees them: no read when there are none, else one
// through the client-side cache.
func (s *Store) PinnedPosts(ctx context.Context, viewer int64, read kernel.Slot) ([]retwis.Post, error) {
	pids, err := read.Replies()[0].AsIntSlice()
	if err != nil || len(pids) == 0 {
		return nil, s.Wrap("pinned posts", err)
	}
	return s.Posts(ctx, viewer, pids)
}
