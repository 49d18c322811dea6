// Package push keeps the Web Push subscriptions of the client API, one
// per access token (schema.PushSubscriptions), and the instance's VAPID
// key pair (vapid.go); internal/push sends the pushes.
package push

import (
	"context"
	"crypto/ecdh"
	"encoding/base64"
	"encoding/json"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/store"
	"github.com/retwis/retwis/internal/store/schema"
)

// Alerts are the kinds of notification a subscription may ask for, by
// Mastodon's names.
var Alerts = []string{"mention", "status", "reblog", "follow", "follow_request", "favourite", "poll", "update",
	"admin.sign_up", "admin.report"}

// Policies are whose notifications a subscription is pushed: everyone's,
// those of accounts the user follows, those of its followers, nobody's.
var Policies = []string{"all", "followed", "follower", "none"}

// MaxEndpoint bounds the length of an endpoint URL.
const MaxEndpoint = 2048

// Subscription is one access token's Web Push subscription.
type Subscription struct {
	ID       int64           `json:"id"`
	Endpoint string          `json:"endpoint"`
	P256dh   string          `json:"p256dh"` // the user agent's public key, base64url
	Auth     string          `json:"auth"`   // its authentication secret, base64url
	Alerts   map[string]bool `json:"alerts"`
	Policy   string          `json:"policy"`
	// Token is the access token itself, which Mastodon's payload carries
	// so that the app knows which of its accounts a push is for.
	Token string `json:"token"`
	// TokenID names the token in tokens:{<id>}, and the subscription in
	// push:{<id>}.
	TokenID string `json:"-"`
	User    int64  `json:"-"`
}

// Options configure a Store.
type Options struct {
	// AllowHTTP accepts endpoints of plain http (tests); https only
	// otherwise.
	AllowHTTP bool
}

// Store keeps the subscriptions, through the online store.
type Store struct {
	st   *store.Store
	opts Options
	keys vapidCache
}

// New returns a Store on st.
func New(st *store.Store, opts Options) *Store { return &Store{st: st, opts: opts} }

// Subscribe records sub (its Endpoint, P256dh, Auth, Alerts, Policy) as
// the subscription of the token tok, whose bearer string is bearer,
// replacing the token's earlier one; input that breaks a rule is an error
// of kind Invalid.
func (s *Store) Subscribe(ctx context.Context, tok retwis.Token, bearer string, sub Subscription) (Subscription, error) {
	if err := s.check(&sub); err != nil {
		return Subscription{}, err
	}
	sub.ID, sub.Token, sub.TokenID, sub.User = time.Now().UnixMicro(), bearer, tok.ID, tok.User.ID
	return sub, s.save(ctx, sub)
}

// Subscription returns the subscription of uid's token tokenID, or an
// error of kind NotFound.
func (s *Store) Subscription(ctx context.Context, uid int64, tokenID string) (Subscription, error) {
	v, err := s.st.C.Do(ctx, s.st.C.B().Hget().Key(schema.PushSubscriptions(uid)).Field(tokenID).Build()).ToString()
	if rueidis.IsRedisNil(err) {
		return Subscription{}, retwis.Errorf(retwis.NotFound, "Record not found")
	}
	if err != nil {
		return Subscription{}, s.st.Wrap("push subscription", err)
	}
	return parse(uid, tokenID, v)
}

// Update changes the alerts and the policy of the subscription of uid's
// token tokenID (a nil alerts or an empty policy leaves it as it is).
func (s *Store) Update(ctx context.Context, uid int64, tokenID string, alerts map[string]bool, policy string) (Subscription, error) {
	sub, err := s.Subscription(ctx, uid, tokenID)
	if err != nil {
		return sub, err
	}
	if alerts != nil {
		sub.Alerts = alerts
	}
	if policy != "" {
		sub.Policy = policy
	}
	if err := checkChoices(&sub); err != nil {
		return Subscription{}, err
	}
	return sub, s.save(ctx, sub)
}

// Unsubscribe removes the subscription of uid's token tokenID, if any.
func (s *Store) Unsubscribe(ctx context.Context, uid int64, tokenID string) error {
	s.st.Written.Add(schema.PushSubscriptions(uid)) // kernel.Push reads it through the cache
	err := s.st.C.Do(ctx, s.st.C.B().Hdel().Key(schema.PushSubscriptions(uid)).Field(tokenID).Build()).Error()
	return s.st.Wrap("push unsubscribe", err)
}

// cacheTTL bounds how long a server trusts its copy of a user's
// subscriptions; Redis invalidates it as soon as they change.
const cacheTTL = time.Minute

// Subscriptions returns uid's subscriptions, one per token that has one,
// read through the client-side cache: no round trip when warm.
func (s *Store) Subscriptions(ctx context.Context, uid int64) ([]Subscription, error) {
	m, err := s.st.Cached(ctx, s.st.C.B().Hgetall().Key(schema.PushSubscriptions(uid)).Cache(), cacheTTL).AsStrMap()
	if err != nil {
		return nil, s.st.Wrap("push subscriptions", err)
	}
	subs := make([]Subscription, 0, len(m))
	for tokenID, v := range m {
		if sub, err := parse(uid, tokenID, v); err == nil {
			subs = append(subs, sub)
		}
	}
	return subs, nil
}

// Gone removes sub, which its push service said is no more (404, 410),
// unless it was replaced meanwhile by one of another id.
func (s *Store) Gone(ctx context.Context, sub Subscription) error {
	now, err := s.Subscription(ctx, sub.User, sub.TokenID)
	if retwis.ErrorKind(err) == retwis.NotFound || (err == nil && now.ID != sub.ID) {
		return nil
	}
	if err != nil {
		return err
	}
	return s.Unsubscribe(ctx, sub.User, sub.TokenID)
}

func (s *Store) save(ctx context.Context, sub Subscription) error {
	s.st.Written.Add(schema.PushSubscriptions(sub.User)) // kernel.Push reads it through the cache
	v, err := json.Marshal(sub)
	if err == nil {
		err = s.st.C.Do(ctx, s.st.C.B().Hset().Key(schema.PushSubscriptions(sub.User)).FieldValue().
			FieldValue(sub.TokenID, string(v)).Build()).Error()
	}
	return s.st.Wrap("push subscribe", err)
}

func parse(uid int64, tokenID, v string) (Subscription, error) {
	var sub Subscription
	if err := json.Unmarshal([]byte(v), &sub); err != nil {
		return sub, err
	}
	sub.User, sub.TokenID = uid, tokenID
	return sub, nil
}

// check checks sub's endpoint and keys (normalized to base64url without
// padding), and its alerts and policy.
func (s *Store) check(sub *Subscription) error {
	u, err := url.Parse(sub.Endpoint)
	switch {
	case sub.Endpoint == "" || len(sub.Endpoint) > MaxEndpoint || err != nil || u.Host == "" || u.User != nil:
		return retwis.Errorf(retwis.Invalid, "Validation failed: Endpoint is not a valid URL of at most %d characters", MaxEndpoint)
	case u.Scheme != "https" && !(s.opts.AllowHTTP && u.Scheme == "http"):
		return retwis.Errorf(retwis.Invalid, "Validation failed: Endpoint must be an https URL")
	}
	p256dh, err := decodeKey(sub.P256dh)
	if err == nil {
		_, err = ecdh.P256().NewPublicKey(p256dh) // an uncompressed point on the curve
	}
	if err != nil {
		return retwis.Errorf(retwis.Invalid, "Validation failed: Keys p256dh is not a P-256 public key")
	}
	auth, err := decodeKey(sub.Auth)
	if err != nil || len(auth) != 16 {
		return retwis.Errorf(retwis.Invalid, "Validation failed: Keys auth is not a 16-byte secret")
	}
	sub.P256dh, sub.Auth = base64.RawURLEncoding.EncodeToString(p256dh), base64.RawURLEncoding.EncodeToString(auth)
	return checkChoices(sub)
}

// checkChoices checks sub's policy ("all" when empty) and drops the
// alerts of unknown kinds.
func checkChoices(sub *Subscription) error {
	if sub.Policy == "" {
		sub.Policy = "all"
	}
	if !slices.Contains(Policies, sub.Policy) {
		return retwis.Errorf(retwis.Invalid, "Validation failed: Policy must be one of %s", strings.Join(Policies, ", "))
	}
	alerts := make(map[string]bool, len(Alerts))
	for _, a := range Alerts {
		alerts[a] = sub.Alerts[a]
	}
	sub.Alerts = alerts
	return nil
}

// decodeKey decodes a key in base64url or standard base64, padded or
// not, as apps send them; at most 256 characters.
func decodeKey(s string) ([]byte, error) {
	if len(s) > 256 {
		return nil, base64.CorruptInputError(256)
	}
	s = strings.TrimRight(strings.NewReplacer("+", "-", "/", "_").Replace(s), "=")
	return base64.RawURLEncoding.DecodeString(s)
}
