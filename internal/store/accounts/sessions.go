package accounts

import (
	"cmp"
	"context"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/redisconn"
	"github.com/retwis/retwis/internal/store/kernel"
	"github.com/retwis/retwis/internal/store/schema"
)

// MaxSessions is how many sessions an account keeps: a login beyond
// them ends the one that began first.
const MaxSessions = 100

// sessionUseEvery is how often a session's use is recorded at most (and
// its idle expiry moved on): a record written on every request would
// invalidate every server's cached copy of the user's sessions as often.
const sessionUseEvery = 5 * time.Minute

// Bounds of what a session records of its device.
const (
	maxDeviceBytes = 64
	maxAddrBytes   = 64
)

// Device is where a login comes from, as its owner's list of sessions
// shows it, and whether it is a known device.
type Device struct {
	Name string // what the browser is, shortly: "Firefox on Linux"
	Addr string // the client's address
	// Known is the device as its device cookie proves it
	// (RecognizeDevice), if it does: a login to Known.UID's account is
	// then the known device's (see Login).
	Known KnownDevice
}

type deviceKey struct{}

// WithDevice returns ctx carrying d: the sessions that Login, Register
// and ChangePassword make under it are listed with d, each part cut to
// a few dozen bytes of printable text.
func WithDevice(ctx context.Context, d Device) context.Context {
	return context.WithValue(ctx, deviceKey{}, d)
}

// deviceFrom returns the device ctx carries, bounded.
func deviceFrom(ctx context.Context) Device {
	d, _ := ctx.Value(deviceKey{}).(Device)
	return Device{Name: printable(d.Name, maxDeviceBytes), Addr: printable(d.Addr, maxAddrBytes), Known: d.Known}
}

// printable returns s without invalid UTF-8 or control characters, cut
// at a character boundary to at most n bytes.
func printable(s string, n int) string {
	s = strings.ToValidUTF8(s[:min(len(s), 4*n)], "")
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return -1
		}
		return r
	}, s)
	for len(s) > n {
		_, size := utf8.DecodeLastRuneInString(s)
		s = s[:len(s)-size]
	}
	return s
}

// sessionRecord is what Sessions holds of a session; times are unix
// seconds.
type sessionRecord struct {
	Created int64  `json:"created"`
	Used    int64  `json:"used"`
	Idle    int64  `json:"idle"`    // it ends then unless used before
	Expires int64  `json:"expires"` // it ends then whatever
	Device  string `json:"device,omitempty"`
	Addr    string `json:"addr,omitempty"`
	Legacy  bool   `json:"legacy,omitempty"` // the user hash's auth secret
}

// newRecord returns the record of a session that begins at now.
func (s *Store) newRecord(now time.Time, d Device, legacy bool) sessionRecord {
	return sessionRecord{Created: now.Unix(), Used: now.Unix(), Idle: now.Add(s.Opts.SessionIdle).Unix(),
		Expires: now.Add(s.Opts.SessionMax).Unix(), Device: d.Name, Addr: d.Addr, Legacy: legacy}
}

// live reports whether the session still authenticates at now.
func (r sessionRecord) live(now time.Time) bool { return now.Unix() < min(r.Idle, r.Expires) }

// encode returns the record as stored.
func (r sessionRecord) encode() string {
	v, _ := json.Marshal(r) // strings and numbers: it cannot fail
	return string(v)
}

// parseRecord reads a stored record.
func parseRecord(v string) (sessionRecord, error) {
	var r sessionRecord
	err := json.Unmarshal([]byte(v), &r)
	return r, err
}

// SessionID returns the ID, as Sessions lists it, of the session whose
// cookie is token (whether or not it exists): the SHA-256 of its
// secret, so that the list names sessions without holding their secrets.
func SessionID(token string) string {
	_, secret, _ := parseToken(token)
	return digest(secret)
}

// validID reports whether id has the shape of a session's ID.
func validID(id string) bool {
	if len(id) != 64 {
		return false
	}
	for _, c := range []byte(id) {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// newSession begins a session for uid, on the device ctx carries (see
// WithDevice), and returns its token, the cookie "<uid>:<secret>". The
// sessions' key lives as long as its newest session may. Sessions that
// expired, and the oldest beyond MaxSessions, end on the way.
func (s *Store) newSession(ctx context.Context, uid int64) (string, error) {
	secret, now := RandomString(32), s.Now()
	key, b := schema.Sessions(uid), s.C.B()
	s.Written.Add(key)
	res := s.ReplicatedCounting(ctx, uid, "", func() rueidis.Commands { // a login, counted
		return rueidis.Commands{
			b.Hset().Key(key).FieldValue().FieldValue(digest(secret), s.newRecord(now, deviceFrom(ctx), false).encode()).Build(),
			b.Expire().Key(key).Seconds(int64(s.Opts.SessionMax.Seconds())).Build(),
			b.Hgetall().Key(key).Build(),
		}
	}, key)
	if err := redisconn.FirstErr(res); err != nil {
		return "", s.Wrap("new session", err)
	}
	all, _ := res[2].AsStrMap()
	s.endStale(ctx, uid, all, now)
	return sessionToken(uid, secret), nil
}

// endStale ends, of uid's sessions all (id -> record), those that
// expired or do not parse, and the oldest beyond MaxSessions. The
// secret of before sessions per device is left to Authenticate, which
// ends it with its auth field. Only tidying: a failure is logged.
func (s *Store) endStale(ctx context.Context, uid int64, all map[string]string, now time.Time) {
	type entry struct {
		id      string
		created int64
	}
	var stale []string
	var live []entry
	for id, v := range all {
		r, err := parseRecord(v)
		switch {
		case err != nil || !r.Legacy && !r.live(now):
			stale = append(stale, id)
		case !r.Legacy:
			live = append(live, entry{id, r.Created})
		}
	}
	if len(live) > MaxSessions {
		slices.SortFunc(live, func(a, b entry) int { return cmp.Or(cmp.Compare(a.created, b.created), strings.Compare(a.id, b.id)) })
		for _, e := range live[:len(live)-MaxSessions] {
			stale = append(stale, e.id)
		}
	}
	if len(stale) == 0 {
		return
	}
	s.Written.Add(schema.Sessions(uid))
	if err := s.C.Do(ctx, s.C.B().Hdel().Key(schema.Sessions(uid)).Field(stale...).Build()).Error(); err != nil {
		s.Log.Warn("ended sessions stay in their hash (they no longer authenticate)", "user", uid, "err", err)
	}
}

// readSession reads, through the client-side cache, uid's account and
// the record of its session id (found is false without one).
func (s *Store) readSession(ctx context.Context, uid int64, id string) (acct Account, r sessionRecord, found bool, err error) {
	res := s.CachedMulti(ctx, rueidis.CT(s.accountCmd(uid), AuthCacheTTL),
		rueidis.CT(s.C.B().Hget().Key(schema.Sessions(uid)).Field(id).Cache(), AuthCacheTTL))
	if acct, err = s.parseAccount(res[0]); err != nil {
		return Account{}, sessionRecord{}, false, err
	}
	v, err := res[1].ToString()
	if rueidis.IsRedisNil(err) {
		return acct, sessionRecord{}, false, nil
	}
	if err != nil {
		return Account{}, sessionRecord{}, false, s.Wrap("read session", err)
	}
	r, err = parseRecord(v)
	return acct, r, err == nil, nil // a record that does not parse authenticates nothing
}

// seeLegacy records the first use of uid's secret of before sessions
// per device, which then expires as a session does, counted from now.
// A failure is logged: the secret goes on authenticating meanwhile.
func (s *Store) seeLegacy(ctx context.Context, uid int64, secret string, now time.Time) sessionRecord {
	r := s.newRecord(now, Device{}, true)
	s.Written.Add(schema.Sessions(uid))
	err := kernel.LegacySeen.Exec(ctx, s.C, []string{schema.User(uid), schema.Sessions(uid)}, schema.FieldAuth, secret,
		digest(secret), r.encode(), strconv.FormatInt(int64(s.Opts.SessionMax.Seconds()), 10)).Error()
	if err != nil {
		s.Log.Warn("recording the first use of a secret of before sessions per device", "user", uid, "err", err)
	}
	return r
}

// useEvery is how often a session's use is recorded: sessionUseEvery,
// or more often for a short idle expiry, which each use moves on.
func (s *Store) useEvery() time.Duration { return min(sessionUseEvery, s.Opts.SessionIdle/4) }

// touch records that session id of uid was used at now, and moves its
// idle expiry on, if its last use was recorded long enough ago. A
// failure is logged: the session goes on.
func (s *Store) touch(ctx context.Context, uid int64, id string, r sessionRecord, now time.Time) {
	if now.Sub(time.Unix(r.Used, 0)) < s.useEvery() {
		return
	}
	r.Used, r.Idle = now.Unix(), now.Add(s.Opts.SessionIdle).Unix()
	if err := kernel.TouchSession.Exec(ctx, s.C, []string{schema.Sessions(uid)}, id, r.encode()).Error(); err != nil {
		s.Log.Warn("recording a session's use", "user", uid, "err", err)
	}
}

// Sessions lists uid's sessions that have not ended, the most recently
// used first; the secret of before sessions per device among them, if
// the account still has it. Sessions found expired end on the way.
func (s *Store) Sessions(ctx context.Context, uid int64) ([]retwis.Session, error) {
	res := s.C.DoMulti(ctx, s.Uncached(s.accountCmd(uid)), s.C.B().Hgetall().Key(schema.Sessions(uid)).Build())
	acct, err := s.parseAccount(res[0])
	if err != nil {
		return nil, err
	}
	all, err := res[1].AsStrMap()
	if err != nil {
		return nil, s.Wrap("sessions", err)
	}
	now := s.Now()
	s.endStale(ctx, uid, all, now)
	legacy := ""
	if acct.Auth != "" {
		legacy = digest(acct.Auth)
	}
	out := make([]retwis.Session, 0, len(all)+1)
	for id, v := range all {
		if r, err := parseRecord(v); err == nil && r.live(now) && (!r.Legacy || id == legacy) {
			out = append(out, listed(id, r))
		}
	}
	if _, seen := all[legacy]; legacy != "" && !seen {
		out = append(out, retwis.Session{ID: legacy, Legacy: true})
	}
	slices.SortFunc(out, func(a, b retwis.Session) int {
		return cmp.Or(b.LastUsed.Compare(a.LastUsed), b.Created.Compare(a.Created), strings.Compare(a.ID, b.ID))
	})
	return out, nil
}

// listed returns session id, of record r, as its owner sees it.
func listed(id string, r sessionRecord) retwis.Session {
	return retwis.Session{ID: id, Device: r.Device, Addr: r.Addr, Created: time.Unix(r.Created, 0),
		LastUsed: time.Unix(r.Used, 0), Expires: time.Unix(min(r.Idle, r.Expires), 0), Legacy: r.Legacy}
}

// EndSession ends uid's session with the given ID (as Sessions lists
// it): it stops authenticating at once, and the live streams it opened
// end, on every server. The secret of
// before sessions per device ends with its auth field. A malformed ID
// is an error of kind Invalid, an unknown one of kind NotFound; nothing
// is written then.
func (s *Store) EndSession(ctx context.Context, uid int64, id string) error {
	if !validID(id) {
		return retwis.Errorf(retwis.Invalid, "That is not a session.")
	}
	acct, err := s.Account(ctx, uid, false)
	if err != nil {
		return err
	}
	if acct.Auth != "" && digest(acct.Auth) == id {
		err = s.endLegacy(ctx, uid, acct.Auth)
	} else {
		err = s.endSession(ctx, uid, id)
	}
	if err == nil {
		s.revoked(ctx, Revocation{What: RevokedSession, User: uid, Ref: id})
	}
	return err
}

// endSession ends uid's session id (not the secret of before sessions
// per device): an error of kind NotFound if it has none such.
func (s *Store) endSession(ctx context.Context, uid int64, id string) error {
	s.Written.Add(schema.Sessions(uid)) // this server's next read must not be its cached copy
	n, err := s.C.Do(ctx, s.C.B().Hdel().Key(schema.Sessions(uid)).Field(id).Build()).AsInt64()
	if err != nil {
		return s.Wrap("end session", err)
	}
	if n == 0 {
		return retwis.Errorf(retwis.NotFound, "There is no such session.")
	}
	return nil
}

// endLegacy ends uid's secret of before sessions per device: its auth
// field first (what authenticates), then its record and its entry in
// the auths shards.
func (s *Store) endLegacy(ctx context.Context, uid int64, secret string) error {
	s.Written.Add(schema.User(uid), schema.Sessions(uid))
	b := s.C.B()
	err := redisconn.FirstErr(s.C.DoMulti(ctx, b.Hdel().Key(schema.User(uid)).Field(schema.FieldAuth).Build(),
		b.Hdel().Key(schema.Sessions(uid)).Field(digest(secret)).Build()))
	if err != nil {
		return s.Wrap("end the secret of before sessions", err)
	}
	s.ForgetSecret(ctx, uid, secret)
	return nil
}

// Logout ends the session whose cookie is token, and no other: the
// user's other devices stay logged in. A session that has ended
// already is no error.
func (s *Store) Logout(ctx context.Context, uid int64, token string) error {
	// Once started, the logout completes even if the client goes away.
	err := s.EndSession(context.WithoutCancel(ctx), uid, SessionID(token))
	if retwis.ErrorKind(err) == retwis.NotFound {
		return nil
	}
	return err
}

// EndSessions ends every session of uid, the secret of before sessions
// per device too, but the one whose cookie is keep ("" keeps none), at
// once, and the live streams they opened end on every server: "log out
// everywhere" (keep ""), an account suspended or deleted.
// API tokens are not sessions: RevokeTokens ends those.
func (s *Store) EndSessions(ctx context.Context, uid int64, keep string) error {
	acct, err := s.Account(ctx, uid, false)
	if err != nil {
		return err
	}
	return s.endSessions(context.WithoutCancel(ctx), uid, acct.Auth, keep)
}

// endSessions ends every session of uid but the one whose cookie is
// keep ("" none), given the account's auth secret (its legacy session,
// "" when it has none), and writes the user hash's field-value pairs
// fields at the same time (if the hash exists).
func (s *Store) endSessions(ctx context.Context, uid int64, auth, keep string, fields ...string) error {
	keepID, keepLegacy := "", "0"
	if keep != "" {
		_, secret, _ := parseToken(keep)
		keepID = digest(secret)
		if auth != "" && equal(auth, secret) {
			keepLegacy = "1"
		}
	}
	s.Written.Add(schema.User(uid), schema.Sessions(uid))
	err := kernel.EndSessions.Exec(ctx, s.C, []string{schema.User(uid), schema.Sessions(uid)},
		append([]string{schema.FieldAuth, keepID, keepLegacy}, fields...)...).Error()
	if err != nil {
		return s.Wrap("end sessions", err)
	}
	if keepLegacy == "0" {
		s.ForgetSecret(ctx, uid, auth)
	}
	s.revoked(ctx, Revocation{What: RevokedSessions, User: uid, Ref: keepID})
	return nil
}
