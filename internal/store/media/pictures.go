package media

import (
	"context"
	"time"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/redisconn"
	"github.com/retwis/retwis/internal/store/index"
	"github.com/retwis/retwis/internal/store/kernel"
	"github.com/retwis/retwis/internal/store/schema"
)

// SetPicture makes a (ready, of uid) uid's avatar or header (field:
// schema.FieldAvatar or FieldHeader), or with a zero a, takes theirs
// away; the one it replaces goes to upkeep, due at once. It reads the
// one it replaces, then writes in one round trip.
func (s *Store) SetPicture(ctx context.Context, uid int64, field string, a retwis.Attachment) error {
	b := s.st.C.B()
	old, err := s.st.C.Do(ctx, b.Hget().Key(schema.User(uid)).Field(field).Build()).ToString()
	if err != nil && !rueidis.IsRedisNil(err) {
		return s.st.Wrap("media: read picture", err)
	}
	s.st.Written.Add(schema.User(uid))
	return s.st.Wrap("media: set picture", redisconn.FirstErr(s.st.Pipeline(ctx, func() rueidis.Commands {
		var cmds rueidis.Commands
		if a.ID != 0 {
			cmds = append(cmds, kernel.SetIfExists.Cmd(s.st.C, []string{schema.User(uid)}, field, retwis.EncodeAttachments([]retwis.Attachment{a})))
		} else {
			cmds = append(cmds, b.Hdel().Key(schema.User(uid)).Field(field).Build())
		}
		for _, o := range retwis.DecodeAttachments(old) {
			if o.ID != a.ID {
				cmds = append(cmds, index.MediaDueCmd(s.st.C, time.Time{}, uid, o.ID))
			}
		}
		return cmds
	})))
}

// Picture returns uid's avatar or header (nil: none), read through the
// client-side cache.
func (s *Store) Picture(ctx context.Context, uid int64, field string) (*retwis.Attachment, error) {
	v, err := s.st.C.DoCache(ctx, s.st.C.B().Hget().Key(schema.User(uid)).Field(field).Cache(), s.st.Opts.CacheTTL).ToString()
	if rueidis.IsRedisNil(err) {
		return nil, nil
	}
	if err != nil {
		return nil, s.st.Wrap("media: read picture", err)
	}
	if as := retwis.DecodeAttachments(v); len(as) == 1 {
		return &as[0], nil
	}
	return nil, nil
}
