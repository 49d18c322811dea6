package store

import (
	"context"
	"slices"
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

// The treatments of notifications a policy may give.
const (
	PolicyAccept = "accept"
	PolicyFilter = "filter"
	PolicyDrop   = "drop"
)

// NotificationPolicy returns uid's notification policy: for each of
// schema.PolicyFields, PolicyAccept, PolicyFilter or PolicyDrop. One
// round trip.
func (s *Store) NotificationPolicy(ctx context.Context, uid int64) (map[string]string, error) {
	fields, err := s.C.Do(ctx, s.C.B().Hgetall().Key(schema.NotificationPolicy(uid)).Build()).AsStrMap()
	if err != nil {
		return nil, s.Wrap("notification policy", err)
	}
	return withDefaults(fields), nil
}

// SetNotificationPolicy changes the fields of uid's notification policy
// that change names (others keep their value) and returns the policy, in
// one round trip. A field that is not one of schema.PolicyFields, or a
// value that is not a treatment, is Invalid, and nothing is written.
func (s *Store) SetNotificationPolicy(ctx context.Context, uid int64, change map[string]string) (map[string]string, error) {
	b := s.C.B()
	set := b.Hset().Key(schema.NotificationPolicy(uid)).FieldValue()
	for field, value := range change {
		if !slices.Contains(schema.PolicyFields, field) {
			return nil, retwis.Errorf(retwis.Invalid, "%s is not a field of the notification policy", field)
		}
		if value != PolicyAccept && value != PolicyFilter && value != PolicyDrop {
			return nil, retwis.Errorf(retwis.Invalid, "%s must be accept, filter or drop", field)
		}
		set = set.FieldValue(field, value)
	}
	if len(change) == 0 {
		return s.NotificationPolicy(ctx, uid)
	}
	res := s.C.DoMulti(ctx, set.Build(), b.Hgetall().Key(schema.NotificationPolicy(uid)).Build())
	if err := res[0].Error(); err != nil {
		return nil, s.Wrap("set notification policy", err)
	}
	fields, err := res[1].AsStrMap()
	if err != nil {
		return nil, s.Wrap("set notification policy", err)
	}
	return withDefaults(fields), nil
}

// withDefaults returns the policy of the fields of a
// schema.NotificationPolicy hash: PolicyAccept where absent.
func withDefaults(fields map[string]string) map[string]string {
	policy := make(map[string]string, len(schema.PolicyFields))
	for _, f := range schema.PolicyFields {
		policy[f] = PolicyAccept
		if v := fields[f]; v != "" {
			policy[f] = v
		}
	}
	return policy
}
