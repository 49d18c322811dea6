package store

import (
	"context"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/store/kernel"
	"github.com/retwis/retwis/internal/store/schema"
)

// Relations reports how viewer and each of uids are tied: follows,
// blocks and mutes, both ways. Five commands of viewer's slot (ZMSCORE),
// however many users are asked about.
func (s *Store) Relations(ctx context.Context, viewer int64, uids []int64) ([]retwis.Ties, error) {
	if len(uids) == 0 {
		return nil, nil
	}
	b := s.C.B()
	members := kernel.IDs(uids)
	res := s.C.DoMulti(ctx,
		b.Zmscore().Key(schema.Following(viewer)).Member(members...).Build(),
		b.Zmscore().Key(schema.Followers(viewer)).Member(members...).Build(),
		b.Zmscore().Key(schema.Blocks(viewer)).Member(members...).Build(),
		b.Zmscore().Key(schema.BlockedBy(viewer)).Member(members...).Build(),
		b.Zmscore().Key(schema.Mutes(viewer)).Member(members...).Build())
	ties := make([]retwis.Ties, len(uids))
	fields := []func(t *retwis.Ties) *bool{
		func(t *retwis.Ties) *bool { return &t.Following }, func(t *retwis.Ties) *bool { return &t.FollowedBy },
		func(t *retwis.Ties) *bool { return &t.Blocking }, func(t *retwis.Ties) *bool { return &t.BlockedBy },
		func(t *retwis.Ties) *bool { return &t.Muting },
	}
	for k, r := range res {
		vals, err := r.ToArray()
		if err == nil && len(vals) != len(uids) {
			err = kernel.ErrShape
		}
		if err != nil {
			return nil, s.Wrap("relations", err)
		}
		for i, v := range vals {
			*fields[k](&ties[i]) = !v.IsNil()
		}
	}
	return ties, nil
}
