package bulk

import (
	"context"

	"github.com/retwis/retwis/internal/store"
	"github.com/retwis/retwis/internal/store/schema"
)

// BuildTimeline replaces uid's home timeline, list and archive, with the
// newest n posts of uid and of the users uid follows, and returns them,
// newest first. It is for tools that seed a database (retwis bench
// gives a user following thousands a deep timeline at once), not for a
// live user: deliveries made while it runs are lost, and the chunks of a
// longer archive than the one it writes are left behind. It reads whom
// uid follows as the store does.
func BuildTimeline(ctx context.Context, s *store.Store, uid int64, n int) ([]int64, error) {
	authors, err := s.C.Do(ctx, s.C.B().Zrange().Key(schema.Following(uid)).Min("0").Max("-1").Build()).AsIntSlice()
	if err != nil {
		return nil, s.Wrap("following", err)
	}
	ids, err := s.NewestOf(ctx, append(authors, uid), n)
	if err != nil {
		return nil, err
	}
	if err := s.C.Do(ctx, s.C.B().Del().Key(schema.Home(uid), schema.Archive(uid)).Build()).Error(); err != nil {
		return nil, s.Wrap("build timeline", err)
	}
	w := NewLiveWriter(ctx, s.DB)
	list := ids[:min(len(ids), s.Opts.HomeCap)]
	if err := w.Home(uid, list); err != nil {
		return nil, err
	}
	if err := w.Archive(uid, ids[len(list):]); err != nil {
		return nil, err
	}
	return ids, w.Flush()
}
