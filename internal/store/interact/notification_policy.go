package interact

import (
	"context"
	"slices"
	"strconv"
	"time"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/store/kernel"
	"github.com/retwis/retwis/internal/store/schema"
)

// The treatments of notifications a policy may give.
const (
	PolicyAccept = "accept"
	PolicyFilter = "filter"
	PolicyDrop   = "drop"
)

// NotificationPolicy returns uid's notification policy: for each of
// schema.PolicyFields, PolicyAccept, PolicyFilter or PolicyDrop. One
// round trip, none when the client-side cache has it.
func (s *Store) NotificationPolicy(ctx context.Context, uid int64) (map[string]string, error) {
	fields, err := s.Cached(ctx, s.C.B().Hgetall().Key(schema.NotificationPolicy(uid)).Cache(), s.Opts.CacheTTL).AsStrMap()
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
	s.Written.Add(schema.NotificationPolicy(uid))
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

// newAccount is how young an account is new to a notification policy
// (for_new_accounts), as Mastodon counts it.
const newAccount = 30 * 24 * time.Hour

// ApplyPolicy returns notes, uid's notifications, without those that
// policy (uid's, from NotificationPolicy) filters or drops, both left
// out, since retwis keeps no filtered notifications aside: those from
// accounts uid does not follow (for_not_following), that do not follow
// uid (for_not_followers), or that signed up less than 30 days ago
// (for_new_accounts). for_private_mentions and for_limited_accounts
// are not applied: the notifications of retwis carry no visibility, and
// it limits no account. Nothing is read when the policy accepts all;
// else one round trip, whatever the number of notifications.
func (s *Store) ApplyPolicy(ctx context.Context, uid int64, policy map[string]string, notes []retwis.Notification) ([]retwis.Notification, error) {
	notFollowing, notFollowers, young := policy["for_not_following"] != PolicyAccept,
		policy["for_not_followers"] != PolicyAccept, policy["for_new_accounts"] != PolicyAccept
	if len(notes) == 0 || !notFollowing && !notFollowers && !young {
		return notes, nil
	}
	var actors []string
	for _, n := range notes {
		if a := kernel.ID(n.Actor.ID); !slices.Contains(actors, a) {
			actors = append(actors, a)
		}
	}
	b := s.C.B()
	cmds := rueidis.Commands{b.Zmscore().Key(schema.Following(uid)).Member(actors...).Build(),
		b.Zmscore().Key(schema.Followers(uid)).Member(actors...).Build()}
	if young {
		for _, a := range actors {
			id, _ := strconv.ParseInt(a, 10, 64)
			cmds = append(cmds, b.Hget().Key(schema.User(id)).Field(schema.FieldJoined).Build())
		}
	}
	res := s.C.DoMulti(ctx, cmds...)
	followed, err := res[0].ToArray()
	if err != nil {
		return nil, s.Wrap("notification policy: follows", err)
	}
	following, err := res[1].ToArray()
	if err != nil {
		return nil, s.Wrap("notification policy: followers", err)
	}
	newSince := time.Now().Add(-newAccount).Unix()
	kept := notes[:0:0]
	for _, n := range notes {
		i := slices.Index(actors, kernel.ID(n.Actor.ID))
		if notFollowing && followed[i].IsNil() || notFollowers && following[i].IsNil() {
			continue
		}
		if young {
			if joined, err := res[2+i].AsInt64(); err == nil && joined > newSince {
				continue
			}
		}
		kept = append(kept, n)
	}
	return kept, nil
}
