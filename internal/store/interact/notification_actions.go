package interact

import (
	"context"
	"strconv"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/store/posts"
	"github.com/retwis/retwis/internal/store/schema"
)

// DismissNotification removes uid's notification id (as
// posts.NoteID makes it): a read of the notifications of its
// millisecond, then their removal, two round trips. It is NotFound when
// uid has no such notification.
func (s *Store) DismissNotification(ctx context.Context, uid, id int64) error {
	b := s.C.B()
	ms := strconv.FormatInt(id/1000, 10)
	members, err := s.C.Do(ctx, b.Zrangebyscore().Key(schema.Notifications(uid)).Min(ms).Max(ms).Build()).AsStrSlice()
	if err != nil {
		return s.Wrap("dismiss notification", err)
	}
	for _, m := range members {
		if posts.NoteID(id/1000, m) == id {
			s.Written.Add(schema.Notifications(uid))
			return s.Wrap("dismiss notification", s.C.Do(ctx, b.Zrem().Key(schema.Notifications(uid)).Member(m).Build()).Error())
		}
	}
	return retwis.Errorf(retwis.NotFound, "no such notification")
}

// ClearNotifications removes all of uid's notifications, in one round
// trip.
func (s *Store) ClearNotifications(ctx context.Context, uid int64) error {
	s.Written.Add(schema.Notifications(uid))
	return s.Wrap("clear notifications", s.C.Do(ctx, s.C.B().Del().Key(schema.Notifications(uid)).Build()).Error())
}
