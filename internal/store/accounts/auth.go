package accounts

import (
	"context"
	"crypto/subtle"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/password"
	"github.com/retwis/retwis/internal/store/kernel"
	"github.com/retwis/retwis/internal/store/schema"
)

// AuthCacheTTL bounds how long authentication data stays in the
// client-side cache, on top of Redis's invalidation.
const AuthCacheTTL = time.Minute

// Account holds the fields of a user hash that authentication and
// activity tracking need.
type Account struct {
	Username  string
	Auth      string
	hash      string // argon2id PHC string
	legacy    string // plaintext password of an original-Retwis account
	Seen      int64  // unix time the user was last seen; 0 if never recorded
	Rebuild   bool   // the home timeline awaits a rebuild
	suspended bool   // the account is suspended
	Filtered  bool   // the user made a filter (retwis.User.Filtered)
}

// Account reads the fields of a user hash that authentication needs.
// With cached, the copy in the client-side cache will do: Redis
// invalidates it as soon as the hash changes (a password change, say).
func (s *Store) Account(ctx context.Context, uid int64, cached bool) (Account, error) {
	if cached {
		return s.parseAccount(s.Cached(ctx, s.accountCmd(uid), AuthCacheTTL))
	}
	return s.parseAccount(s.C.Do(ctx, s.Uncached(s.accountCmd(uid))))
}

// AccountRead is Account's cached read, for a page to send with its own
// reads; ParseAccount reads its reply.
func (s *Store) AccountRead(uid int64) rueidis.CacheableTTL {
	return rueidis.CT(s.accountCmd(uid), AuthCacheTTL)
}

// ParseAccount reads the reply to AccountRead.
func (s *Store) ParseAccount(r rueidis.RedisResult) (Account, error) { return s.parseAccount(r) }

// accountCmd is the read of account.
func (s *Store) accountCmd(uid int64) rueidis.Cacheable {
	return s.C.B().Hmget().Key(schema.User(uid)).Field(schema.FieldUsername, schema.FieldAuth, schema.FieldPasswordHash,
		schema.FieldPassword, schema.FieldSeen, schema.FieldRebuild, schema.FieldSuspended, schema.FieldFiltered).Cache()
}

// parseAccount reads the reply to accountCmd.
func (s *Store) parseAccount(r rueidis.RedisResult) (Account, error) {
	vals, err := r.ToArray()
	if err != nil {
		return Account{}, s.Wrap("read account", err)
	}
	str := func(i int) string { v, _ := vals[i].ToString(); return v }
	seen, _ := strconv.ParseInt(str(4), 10, 64)
	return Account{Username: str(0), Auth: str(1), hash: str(2), legacy: str(3), Seen: seen, Rebuild: str(5) != "", suspended: str(6) != "",
		Filtered: str(7) != ""}, nil
}

// CheckPassword verifies pass against the account. A legacy plaintext
// password is compared in constant time and, when it matches, re-stored
// hashed with the plaintext removed. From a known device of the account
// (Device.Known), the hash is made in the known lane of the hashers
// (password.WithKnownClient).
func (s *Store) CheckPassword(ctx context.Context, uid int64, acct Account, pass string) (bool, error) {
	if known, ok := knownDevice(ctx, uid); ok {
		ctx = password.WithKnownClient(ctx, known.ID)
	}
	switch {
	case acct.hash != "":
		ok, err := s.VerifyPassword(ctx, pass, acct.hash)
		if err != nil {
			return false, fmt.Errorf("store: user %d: %w", uid, err)
		}
		return ok, nil
	case acct.legacy != "":
		// Spend what a hashed account costs, then compare in constant time.
		if _, err := s.VerifyPassword(ctx, pass, ""); err != nil {
			return false, err
		}
		if subtle.ConstantTimeCompare([]byte(pass), []byte(acct.legacy)) != 1 {
			return false, nil
		}
		hash, err := s.HashPassword(ctx, pass)
		if err != nil {
			return false, err
		}
		err = kernel.UpgradeLegacy.Exec(ctx, s.C, []string{schema.User(uid)}, acct.legacy, hash, schema.FieldPassword, schema.FieldPasswordHash).Error()
		return true, s.Wrap("upgrade legacy password", err)
	}
	return s.VerifyPassword(ctx, pass, "") // no password at all: nobody can log in
}

// Authenticate maps a session token (the auth cookie) to its user. A
// token is "<user id>:<secret>": the user's slot alone answers, the
// secret's SHA-256 looked up among the user's sessions, so that
// authentication reads one slot of a cluster, the user's own, and a
// failed master stops only the sessions of the users it holds. The
// secret of before sessions per device, the user hash's auth field, is
// compared in constant time. A token without the id (a cookie of the
// tutorial's Retwis, or of retwis before layout 3) is mapped to its user
// through the auths shards first, as the tutorial's isLoggedIn does.
//
// The reads come from the client-side cache when warm, so a page view
// costs no round trip for authentication. Redis tracks the cached keys
// and invalidates them when they change: a session ended stops on this
// server at once, and on other servers as soon as the invalidation
// reaches them. A session expired (see Options.SessionIdle and
// SessionMax) ends; the use of one is recorded at most every few
// minutes, which moves its idle expiry on; the secret of before sessions
// per device is recorded the first time it is used, which starts its
// expiry. Those are the only writes: reading the home timeline is what
// records that a user is active (see markSeen).
func (s *Store) Authenticate(ctx context.Context, token string) (retwis.User, error) {
	none := retwis.Errorf(retwis.Unauthorized, "Please log in.")
	if token == "" || len(token) > 128 {
		return retwis.User{}, none
	}
	uid, secret, err := s.tokenOwner(ctx, token)
	if err != nil {
		return retwis.User{}, err
	}
	id := digest(secret)
	acct, r, found, err := s.readSession(ctx, uid, id)
	if err != nil {
		return retwis.User{}, err
	}
	legacy := acct.Auth != "" && equal(acct.Auth, secret)
	now := s.Now()
	switch {
	case acct.Username == "" || acct.suspended: // the account is gone, or suspended
		return retwis.User{}, none
	case found && !r.Legacy:
	case legacy && !found:
		r = s.seeLegacy(ctx, uid, secret, now)
	case !legacy:
		return retwis.User{}, none
	}
	if !r.live(now) {
		s.endExpired(ctx, uid, secret, r)
		return retwis.User{}, none
	}
	s.touch(ctx, uid, id, r, now)
	return retwis.User{ID: uid, Username: acct.Username, Filtered: acct.Filtered}, nil
}

// tokenOwner returns the user a session token names and its secret: the
// id the token begins with, or, for a token of the tutorial's kind, the
// one its auths shard maps it to (an error of kind Unauthorized for
// none).
func (s *Store) tokenOwner(ctx context.Context, token string) (int64, string, error) {
	uid, secret, ok := parseToken(token)
	if ok {
		return uid, secret, nil
	}
	v, err := s.Cached(ctx, s.C.B().Hget().Key(schema.Auths(token)).Field(token).Cache(), AuthCacheTTL).ToString()
	if rueidis.IsRedisNil(err) {
		return 0, "", retwis.Errorf(retwis.Unauthorized, "Please log in.")
	}
	if err != nil {
		return 0, "", s.Wrap("authenticate", err)
	}
	if uid, err = strconv.ParseInt(v, 10, 64); err != nil || uid <= 0 {
		return 0, "", retwis.Errorf(retwis.Unauthorized, "Please log in.")
	}
	return uid, token, nil
}

// endExpired ends uid's session of secret, found expired (r). Only
// tidying, since an expired session authenticates nothing: a failure is
// logged.
func (s *Store) endExpired(ctx context.Context, uid int64, secret string, r sessionRecord) {
	var err error
	if r.Legacy {
		err = s.endLegacy(ctx, uid, secret)
	} else {
		s.Written.Add(schema.Sessions(uid))
		err = s.C.Do(ctx, s.C.B().Hdel().Key(schema.Sessions(uid)).Field(digest(secret)).Build()).Error()
	}
	if err != nil {
		s.Log.Warn("an expired session stays in its hash (it no longer authenticates)", "user", uid, "err", err)
	}
}

// equal compares two secrets in constant time.
func equal(a, b string) bool { return subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1 }

// sessionToken returns the token of a session of uid with secret.
func sessionToken(uid int64, secret string) string { return kernel.ID(uid) + ":" + secret }

// parseToken splits a session token into the user id and the secret. ok
// is false for a token without the id, whose whole is the secret.
func parseToken(token string) (uid int64, secret string, ok bool) {
	prefix, secret, found := strings.Cut(token, ":")
	if !found {
		return 0, token, false
	}
	uid, err := strconv.ParseInt(prefix, 10, 64)
	if err != nil || uid <= 0 || secret == "" {
		return 0, token, false
	}
	return uid, secret, true
}

// ForgetSecret removes uid's old secret from its auths shard, where a
// secret of the tutorial's kind may be: only tidying, since the secret
// no longer matches the user hash, so a failure is logged.
func (s *Store) ForgetSecret(ctx context.Context, uid int64, old string) {
	if old == "" {
		return
	}
	s.Written.Add(schema.Auths(old))
	if err := s.C.Do(ctx, s.C.B().Hdel().Key(schema.Auths(old)).Field(old).Build()).Error(); err != nil {
		s.Log.Warn("an old auth secret stays in its auths shard (it no longer matches)", "user", uid, "err", err)
	}
}

// ErrSuspended refuses what a suspended account tries.
var ErrSuspended = retwis.Errorf(retwis.Forbidden, "This account is suspended.")

// SeenCmds record, in the user hash (which fanout checks), that uid was
// seen at unix time now, with the need for a rebuild when the user
// returns from inactivity.
func (s *Store) SeenCmds(uid, now int64, rebuild bool) rueidis.Commands {
	user := s.C.B().Hset().Key(schema.User(uid)).FieldValue().FieldValue(schema.FieldSeen, strconv.FormatInt(now, 10))
	if rebuild {
		user = user.FieldValue(schema.FieldRebuild, "1")
	}
	return rueidis.Commands{user.Build()}
}
