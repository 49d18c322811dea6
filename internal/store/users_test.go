package store_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/redisconn"
	"github.com/retwis/retwis/internal/store"
	"github.com/retwis/retwis/internal/store/accounts"
	"github.com/retwis/retwis/internal/testkit/redistest"
	"github.com/retwis/retwis/internal/testkit/storetest"
)

func TestRegisterLoginLogout(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	u, secret, err := f.St.Register(f.Ctx, "Alice", "password1")
	if err != nil {
		t.Fatal(err)
	}
	if f.Do(t, "HGET", store.KeyNames("Alice"), "Alice") != "1" || f.Do(t, "HGET", store.KeyNamesFolded("Alice"), "alice") != "1" ||
		f.Do(t, "HGET", "user:{1}", "username") != "Alice" {
		t.Fatal("user not stored under its keys")
	}
	if !strings.HasPrefix(secret, "1:") || f.Do(t, "HEXISTS", "sessions:{1}", accounts.SessionID(secret)) != "1" ||
		f.Do(t, "HEXISTS", "user:{1}", "auth") != "0" || strings.Contains(f.Do(t, "HGET", "sessions:{1}", accounts.SessionID(secret)), strings.TrimPrefix(secret, "1:")) {
		t.Fatalf("session token %q is not the user id and a secret whose hash alone sessions:{1} holds", secret)
	}
	if n := f.entries(t, "auths:*"); n != 0 {
		t.Fatalf("the auths shards have %d entries; a token carries its user id and needs none", n)
	}
	if f.Do(t, "HEXISTS", "user:{1}", "password") != "0" ||
		!strings.HasPrefix(f.Do(t, "HGET", "user:{1}", "password_hash"), "$argon2id$") {
		t.Fatal("password not stored hashed")
	}
	if f.Do(t, "ZSCORE", "users_by_time", "Alice") == "" {
		t.Fatal("not in users_by_time")
	}

	got, err := f.St.Authenticate(f.Ctx, secret)
	if err != nil || got != u {
		t.Fatalf("Authenticate = %v, %v; want %v", got, err, u)
	}
	var others []string
	for _, name := range []string{"Alice", "alice", "ALICE"} {
		_, s, err := f.St.Login(f.Ctx, name, "password1")
		if err != nil || s == secret || slices.Contains(others, s) {
			t.Fatalf("Login(%s) = %q, %v; want a session of its own", name, s, err)
		}
		others = append(others, s)
	}

	if err := f.St.Logout(f.Ctx, u.ID, secret); err != nil {
		t.Fatal(err)
	}
	_, err = f.St.Authenticate(f.Ctx, secret)
	storetest.WantKind(t, err, retwis.Unauthorized)
	for _, other := range others {
		if _, err := f.St.Authenticate(f.Ctx, other); err != nil {
			t.Fatalf("logging out of one session ended another: %v", err)
		}
	}
	if err := f.St.Logout(f.Ctx, u.ID, secret); err != nil {
		t.Fatalf("logging out of a session that ended: %v; want no error", err)
	}
}

// TestLoginFailures: failed logins all say the same, and write nothing
// but the record of the failures to the account that exists (which
// slows the next attempts down, see TestLoginSlowsDown).
func TestLoginFailures(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	bob := f.Register(t, "bob")
	before := f.Snapshot(t)
	var msgs []string
	for _, tc := range []struct{ name, pass string }{
		{"bob", "wrong password"}, {"nobody", "password1"}, {"", ""}, {"bob", ""},
		{strings.Repeat("x", 300), "password1"},
	} {
		_, _, err := f.St.Login(f.Ctx, tc.name, tc.pass)
		storetest.WantKind(t, err, retwis.Unauthorized)
		msgs = append(msgs, retwis.ErrorMessage(err))
	}
	if n := f.Do(t, "LLEN", fmt.Sprint("login_failures:{", bob.ID, "}")); n != "2" {
		t.Errorf("bob's failed logins recorded: %s; want 2", n)
	}
	f.Do(t, "DEL", fmt.Sprint("login_failures:{", bob.ID, "}"))
	f.AssertUnchanged(t, before)
	for _, m := range msgs {
		if m != msgs[0] {
			t.Fatalf("login errors differ (%q vs %q): they reveal which part was wrong", m, msgs[0])
		}
	}
}

func TestAuthenticateRejects(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	carol, token, err := f.St.Register(f.Ctx, "carol", "password1")
	if err != nil {
		t.Fatal(err)
	}
	dave := f.Register(t, "dave")
	_, secret, _ := strings.Cut(token, ":")
	f.Do(t, "HSET", store.KeyAuths("stale"), "stale", itoa(carol.ID))     // an entry the user hash does not confirm
	f.Do(t, "HSET", store.KeyAuths("garbage"), "garbage", "not-a-number") // a damaged entry
	for _, bad := range []string{"", "stale", "garbage", "unknown", strings.Repeat("a", 200),
		itoa(dave.ID) + ":" + secret, // carol's secret with dave's id
		itoa(carol.ID) + ":", ":" + secret, "0:" + secret, "-1:" + secret, itoa(carol.ID) + ":" + secret + "x",
		secret, // the secret alone: no auths entry maps it
		"\x00", itoa(carol.ID) + ":\x00", "\xff\xfe", itoa(carol.ID) + ":" + secret + "\x00", "99999999999999999999999:" + secret,
		accounts.SessionID(token), itoa(carol.ID) + ":" + accounts.SessionID(token), // the session's ID is not its secret
	} {
		if _, err := f.St.Authenticate(f.Ctx, bad); retwis.ErrorKind(err) != retwis.Unauthorized {
			t.Errorf("Authenticate(%q) = %v; want Unauthorized", bad, err)
		}
	}
	if u, err := f.St.Authenticate(f.Ctx, token); err != nil || u != carol {
		t.Fatalf("Authenticate(carol's token) = %v, %v", u, err)
	}
}

func TestRegisterInvalidWritesNothing(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.Register(t, "Taken")
	before := f.Snapshot(t)
	for _, tc := range []struct {
		name, user, pass string
		kind             retwis.Kind
	}{
		{"empty name", "", "password1", retwis.Invalid},
		{"too long", strings.Repeat("a", 33), "password1", retwis.Invalid},
		{"space", "a b", "password1", retwis.Invalid},
		{"script", "<script>", "password1", retwis.Invalid},
		{"unicode", "ünï", "password1", retwis.Invalid},
		{"short password", "newuser", "short", retwis.Invalid},
		{"long password", "newuser", strings.Repeat("p", 129), retwis.Invalid},
		{"invalid utf8 password", "newuser", "pass\xffword1", retwis.Invalid},
		{"taken", "Taken", "password1", retwis.Conflict},
		{"taken other case", "tAKEN", "password1", retwis.Conflict},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := f.St.Register(f.Ctx, tc.user, tc.pass)
			storetest.WantKind(t, err, tc.kind)
			f.AssertUnchanged(t, before)
		})
	}
	if _, _, err := f.St.Register(f.Ctx, strings.Repeat("a", 32), strings.Repeat("p", 128)); err != nil {
		t.Fatalf("longest valid name and password refused: %v", err)
	}
}

// TestRegisterRace signs up many variants of one name at once: exactly one
// wins, and the losers leave nothing behind.
// raceRegister signs up n users at once, cycling through names, and
// returns how many sign-ups succeeded; any error but Conflict fails t.
func raceRegister(t *testing.T, f *fixture, names []string, n int) int {
	t.Helper()
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() { _, _, errs[i] = f.St.Register(f.Ctx, names[i%len(names)], "password1") })
	}
	wg.Wait()
	wins := 0
	for _, err := range errs {
		if err == nil {
			wins++
		} else if retwis.ErrorKind(err) != retwis.Conflict {
			t.Fatalf("unexpected error: %v", err)
		}
	}
	return wins
}

func TestRegisterRace(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	if wins := raceRegister(t, f, []string{"Racer", "racer", "RACER", "rAcEr"}, 40); wins != 1 {
		t.Fatalf("%d sign-ups won; want exactly 1", wins)
	}
	if users := f.Strs(t, "KEYS", "user:{*}"); len(users) != 1 {
		t.Fatalf("user hashes left: %v; want 1", users)
	}
	if n := f.entries(t, "users:*"); n != 2 { // the exact name and the folded one
		t.Fatalf("the name shards have %d entries; want 2", n)
	}
}

// TestLegacyAccount logs in to an account written by the original PHP
// Retwis (plaintext password, no folded index) and checks the upgrade.
func TestLegacyAccount(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.Do(t, "SET", "next_user_id", "1000")
	f.Do(t, "HSET", "user:1000", "username", "antirez", "password", "p1pp0pass", "auth", "fea5e81ac8ca77622bed1c2132a021f9")
	f.Do(t, "HSET", "users", "antirez", "1000")
	f.Do(t, "HSET", "auths", "fea5e81ac8ca77622bed1c2132a021f9", "1000")
	f.Do(t, "DEL", "schema_version") // as a database of the original Retwis
	if err := f.St.Migrate(f.Ctx, quiet); err != nil {
		t.Fatal(err)
	}

	_, _, err := f.St.Login(f.Ctx, "antirez", "wrong pass")
	storetest.WantKind(t, err, retwis.Unauthorized)
	if f.Do(t, "HGET", "user:{1000}", "password") != "p1pp0pass" {
		t.Fatal("a failed login touched the legacy password")
	}
	u, secret, err := f.St.Login(f.Ctx, "antirez", "p1pp0pass")
	if err != nil || u.ID != 1000 || !strings.HasPrefix(secret, "1000:") || strings.Contains(secret, "fea5e81ac8ca77622bed1c2132a021f9") {
		t.Fatalf("legacy login = %v %q %v; want a new session", u, secret, err)
	}
	if f.Do(t, "HEXISTS", "user:{1000}", "password") != "0" {
		t.Fatal("plaintext password still stored after login")
	}
	if !strings.HasPrefix(f.Do(t, "HGET", "user:{1000}", "password_hash"), "$argon2id$") {
		t.Fatal("password not re-stored hashed")
	}
	if _, _, err := f.St.Login(f.Ctx, "antirez", "p1pp0pass"); err != nil {
		t.Fatalf("second login, against the hash: %v", err)
	}
	for _, cookie := range []string{secret, "1000:fea5e81ac8ca77622bed1c2132a021f9", "fea5e81ac8ca77622bed1c2132a021f9"} { // a new session, the old secret as retwis's and the PHP Retwis's cookie
		if u, err := f.St.Authenticate(f.Ctx, cookie); err != nil || u.ID != 1000 {
			t.Fatalf("cookie %q: %v, %v", cookie, u, err)
		}
	}
}

func TestUserByName(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.Register(t, "Dave")
	for _, name := range []string{"Dave", "dave", "DAVE"} {
		u, err := f.St.UserByName(f.Ctx, name)
		if err != nil || u.Username != "Dave" {
			t.Fatalf("UserByName(%s) = %v, %v", name, u, err)
		}
	}
	for _, name := range []string{"nobody", "", strings.Repeat("z", 1000)} {
		_, err := f.St.UserByName(f.Ctx, name)
		storetest.WantKind(t, err, retwis.NotFound)
	}
}

func TestLatestUsers(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	for i, name := range []string{"u1", "u2", "u3"} {
		f.Register(t, name)
		// Registration times have one-second resolution: make them distinct.
		f.Do(t, "ZADD", "users_by_time", string(rune('1'+i)), name)
	}
	got, err := f.St.LatestUsers(f.Ctx, 2)
	if err != nil || strings.Join(got, ",") != "u3,u2" {
		t.Fatalf("LatestUsers = %v, %v", got, err)
	}
}

// TestLookupFoldsASCIIOnly looks names up with characters that Unicode
// case mapping would fold into real names: they find nobody.
func TestLookupFoldsASCIIOnly(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.Register(t, "alice")
	f.Register(t, "kelvin")
	for _, name := range []string{"alİce", "al\u0130ce", "\u212aelvin", "ALİCE"} {
		if u, err := f.St.UserByName(f.Ctx, name); retwis.ErrorKind(err) != retwis.NotFound {
			t.Errorf("UserByName(%q) = %v, %v; want not found", name, u, err)
		}
		if _, _, err := f.St.Login(f.Ctx, name, "password1"); retwis.ErrorKind(err) != retwis.Unauthorized {
			t.Errorf("Login(%q): %v; want wrong username or password", name, err)
		}
	}
	if u, err := f.St.UserByName(f.Ctx, "ALICE"); err != nil || u.Username != "alice" {
		t.Fatalf("ASCII case is still ignored: %v, %v", u, err)
	}
}

// cancellingClient cancels a context at the n-th call that reaches
// Redis, as a client that disconnects mid-request does.
type cancellingClient struct {
	rueidis.Client
	n      int64
	calls  atomic.Int64
	cancel context.CancelFunc
}

func (c *cancellingClient) tick() {
	if c.calls.Add(1) == c.n {
		c.cancel()
	}
}

func (c *cancellingClient) Do(ctx context.Context, cmd rueidis.Completed) rueidis.RedisResult {
	c.tick()
	return c.Client.Do(ctx, cmd)
}

func (c *cancellingClient) DoMulti(ctx context.Context, cmds ...rueidis.Completed) []rueidis.RedisResult {
	c.tick()
	return c.Client.DoMulti(ctx, cmds...)
}

// TestRegisterCancelled cancels a sign-up at every step: each either
// creates a complete account or writes nothing, and a cancellation is
// never reported as an outage.
func TestRegisterCancelled(t *testing.T) {
	t.Parallel()
	r := redistest.Start(t)
	f := newFixtureAt(t, r.URL)
	for n := int64(1); n <= 8; n++ {
		c, err := redisconn.Dial(r.URL)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(f.Ctx)
		cc := &cancellingClient{Client: c, n: n, cancel: cancel}
		st, err := store.New(cc, store.Options{Password: storetest.Cheap, Log: quiet})
		if err != nil {
			t.Fatal(err)
		}
		name := fmt.Sprint("leaver", n)
		_, _, err = st.Register(ctx, name, "password1")
		if k := retwis.ErrorKind(err); err != nil && k != retwis.Canceled {
			t.Errorf("step %d: %v (kind %v); want success or canceled", n, err, k)
		}
		st.Close()
		_, loginErr := f.St.UserByName(f.Ctx, name)
		if (err == nil) != (loginErr == nil) {
			t.Errorf("step %d: register said %v, but the name lookup says %v", n, err, loginErr)
		}
		if err != nil {
			for _, k := range f.Strs(t, "KEYS", "user:{*}") {
				if f.Do(t, "HGET", k, "username") == name {
					t.Errorf("step %d: a cancelled sign-up left %s behind", n, k)
				}
			}
		}
	}
}
