package accounts

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"slices"
	"strconv"
	"strings"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis/internal/store/kernel"
	"github.com/retwis/retwis/internal/store/schema"
)

// Known devices (OWASP's device cookies): a browser that logged in to an
// account keeps a device cookie, which names the device (a random id)
// and the accounts it logged in to, signed with HMAC-SHA256 under a key
// the servers share through Redis (schema.DeviceKey, made by the first
// server that signs a cookie). A login to one of those accounts from
// that device is the owner's most likely, and is spared what guessing
// from elsewhere brings on the account: its growing delay (Login) and
// its limit per account (the interfaces give a known device an allowance
// of its own, LoginOnDevice), and its password is hashed in the known
// lane of the hashers (password.WithKnownClient). The cookie proves
// nothing but that the browser once knew the password: the password is
// checked as always.

// MaxDeviceAccounts is how many accounts a device cookie names at most:
// the newest logins'.
const MaxDeviceAccounts = 5

// maxDeviceCookie bounds the cookie read: an id, the accounts, the MAC.
const maxDeviceCookie = 256

// KnownDevice is a browser that logged in to an account before, as its
// device cookie proves (RecognizeDevice).
type KnownDevice struct {
	ID  string // the device's random id
	UID int64  // the account it logged in to
}

// knownDevice returns the known device ctx carries (Device.Known), if it
// is one of uid's.
func knownDevice(ctx context.Context, uid int64) (KnownDevice, bool) {
	d := deviceFrom(ctx).Known
	return d, d.ID != "" && d.UID == uid
}

// LoginOnDevice is the subject of the login attempts from the known
// device d, for its own allowance.
func LoginOnDevice(d KnownDevice) Subject { return Subject(schema.LoginDeviceLimit(d.ID)) }

// deviceCookie is what a device cookie says: the device's id and the
// accounts it logged in to, the newest first. Its value is
// "<id>.<uid>.<uid>….<MAC>", the MAC of what comes before it.
type deviceCookie struct {
	id   string
	uids []int64
}

// payload is the signed part of the cookie's value.
func (c deviceCookie) payload() string {
	var b strings.Builder
	b.WriteString(c.id)
	for _, uid := range c.uids {
		b.WriteByte('.')
		b.WriteString(kernel.ID(uid))
	}
	return b.String()
}

// parseDeviceCookie reads value, signed with key; ok is false if it is
// no cookie the key signed.
func parseDeviceCookie(key []byte, value string) (c deviceCookie, ok bool) {
	i := strings.LastIndexByte(value, '.')
	if len(value) > maxDeviceCookie || i <= 0 {
		return c, false
	}
	payload, mac := value[:i], value[i+1:]
	if !hmac.Equal([]byte(mac), []byte(sign(key, payload))) {
		return c, false
	}
	parts := strings.Split(payload, ".")
	c.id = parts[0]
	for _, p := range parts[1:] {
		uid, err := strconv.ParseInt(p, 10, 64)
		if err != nil {
			return deviceCookie{}, false
		}
		c.uids = append(c.uids, uid)
	}
	return c, c.id != "" && len(c.uids) > 0
}

// sign returns the MAC of payload under key, in base64url.
func sign(key []byte, payload string) string {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(payload))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// deviceKey returns the key of the device cookies, through the
// client-side cache; with create, it makes the key if there is none yet
// (SET NX: whichever server comes first, every server uses its key).
func (s *Store) deviceKey(ctx context.Context, create bool) ([]byte, error) {
	key, err := s.Cached(ctx, s.C.B().Get().Key(schema.DeviceKey).Cache(), AuthCacheTTL).ToString()
	if err == nil || !create || !rueidis.IsRedisNil(err) {
		return []byte(key), s.Wrap("device key", err)
	}
	b := s.C.B()
	s.Written.Add(schema.DeviceKey)
	res := s.C.DoMulti(ctx,
		b.Set().Key(schema.DeviceKey).Value(RandomString(32)).Nx().Build(),
		b.Get().Key(schema.DeviceKey).Build())
	key, err = res[1].ToString()
	return []byte(key), s.Wrap("device key", err)
}

// RecognizeDevice returns the device whose cookie is value, if it logged
// in to the account called username before; ok is false for anyone
// else (no cookie, a cookie of other accounts or not signed by the
// servers' key), and when the cookie cannot be checked (Redis away): the
// attempt is then an unknown client's.
func (s *Store) RecognizeDevice(ctx context.Context, value, username string) (d KnownDevice, ok bool) {
	if value == "" {
		return d, false
	}
	key, err := s.deviceKey(ctx, false)
	if err != nil {
		return d, false
	}
	c, ok := parseDeviceCookie(key, value)
	if !ok {
		return d, false
	}
	uid, err := s.UserID(ctx, username)
	if err != nil || !slices.Contains(c.uids, uid) {
		return d, false
	}
	return KnownDevice{ID: c.id, UID: uid}, true
}

// RememberDevice returns the value of the device cookie of a browser
// that has just logged in to uid's account (or signed up for it), whose
// device cookie was value (maybe none): the same device, if value is
// one, with uid first among its accounts.
func (s *Store) RememberDevice(ctx context.Context, value string, uid int64) (string, error) {
	key, err := s.deviceKey(ctx, true)
	if err != nil {
		return "", err
	}
	c, ok := parseDeviceCookie(key, value)
	if !ok {
		c = deviceCookie{id: RandomString(16)}
	}
	c.uids = slices.DeleteFunc(c.uids, func(u int64) bool { return u == uid })
	c.uids = append([]int64{uid}, c.uids[:min(len(c.uids), MaxDeviceAccounts-1)]...)
	payload := c.payload()
	return payload + "." + sign(key, payload), nil
}
