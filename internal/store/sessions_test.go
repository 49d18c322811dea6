package store_test

import (
	"context"
	"maps"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/store"
	"github.com/retwis/retwis/internal/store/accounts"
	"github.com/retwis/retwis/internal/testkit/redistest"
	"github.com/retwis/retwis/internal/testkit/storetest"
)

// sessionOpts are short expiries, which the tests' clock passes.
var sessionOpts = store.Options{SessionIdle: time.Hour, SessionMax: 3 * time.Hour}

// clock is a store's clock that tests move on.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// withClock gives f's store a clock of the test's, and returns it.
func withClock(f *fixture) *clock {
	c := &clock{t: time.Now()}
	f.St.SetClock(c.now)
	return c
}

// onBothWithSessions runs test on one Redis and on the cluster, with a
// store of short session expiries and the test's clock.
func onBothWithSessions(t *testing.T, test func(t *testing.T, f *fixture, c *clock)) {
	for _, db := range databases {
		t.Run(db.Name, func(t *testing.T) {
			t.Parallel()
			f := newFixtureWith(t, db.URL(t), sessionOpts, false)
			test(t, f, withClock(f))
		})
	}
}

// login logs name in from device and returns the session's token.
func (f *fixture) login(t *testing.T, name, device string) string {
	t.Helper()
	_, token, err := f.St.Login(accounts.WithDevice(f.Ctx, accounts.Device{Name: device, Addr: "192.0.2.1"}), name, "password1")
	if err != nil {
		t.Fatalf("login %s: %v", name, err)
	}
	return token
}

// authenticates reports whether token authenticates as uid.
func (f *fixture) authenticates(t *testing.T, token string, uid int64) bool {
	t.Helper()
	u, err := f.St.Authenticate(f.Ctx, token)
	if err != nil && retwis.ErrorKind(err) != retwis.Unauthorized {
		t.Fatalf("Authenticate: %v", err)
	}
	return err == nil && u.ID == uid
}

// sessions returns the devices of uid's sessions, as listed.
func (f *fixture) sessions(t *testing.T, uid int64) []retwis.Session {
	t.Helper()
	list, err := f.St.Sessions(f.Ctx, uid)
	if err != nil {
		t.Fatal(err)
	}
	return list
}

// giveLegacy gives uid a secret of before sessions per device, as the
// tutorial wrote it: in the user hash and in its auths shard.
func (f *fixture) giveLegacy(t *testing.T, uid int64, secret string) {
	t.Helper()
	f.Do(t, "HSET", store.KeyUser(uid), "auth", secret)
	f.Do(t, "HSET", store.KeyAuths(secret), secret, itoa(uid))
}

// TestSessionsPerDevice: each login is a session of its own, listed
// with its device; logging out ends that one alone.
func TestSessionsPerDevice(t *testing.T) {
	t.Parallel()
	onBothWithSessions(t, func(t *testing.T, f *fixture, c *clock) {
		u := f.Register(t, "owner")
		c.advance(time.Minute)
		laptop := f.login(t, "owner", "Firefox on Linux")
		c.advance(time.Minute)
		phone := f.login(t, "owner", "Safari on iOS")
		list := f.sessions(t, u.ID)
		if len(list) != 3 || list[0].ID != accounts.SessionID(phone) || list[0].Device != "Safari on iOS" ||
			list[0].Addr != "192.0.2.1" || list[1].ID != accounts.SessionID(laptop) || list[0].Legacy {
			t.Fatalf("sessions = %+v; want the phone's, the laptop's, the sign-up's, the latest first", list)
		}
		if want := c.now().Add(time.Hour).Unix(); list[0].Expires.Unix() != want || list[0].Created.Unix() != c.now().Unix() {
			t.Errorf("the phone's session: created %v, expires %v; want now, in an hour", list[0].Created, list[0].Expires)
		}
		if err := f.St.Logout(f.Ctx, u.ID, laptop); err != nil {
			t.Fatal(err)
		}
		if f.authenticates(t, laptop, u.ID) || !f.authenticates(t, phone, u.ID) {
			t.Fatal("logging out of the laptop: want it ended and the phone's session going on")
		}
		if list := f.sessions(t, u.ID); len(list) != 2 || list[0].ID != accounts.SessionID(phone) {
			t.Fatalf("sessions after logging out of one = %+v", list)
		}
	})
}

// TestSessionExpiry: a session ends after the idle expiry without use,
// each use (recorded every few minutes) moving it on, and at the
// absolute expiry however much it is used.
func TestSessionExpiry(t *testing.T) {
	t.Parallel()
	onBothWithSessions(t, func(t *testing.T, f *fixture, c *clock) {
		u := f.Register(t, "owner")
		idle, busy := f.login(t, "owner", "idle"), f.login(t, "owner", "busy")
		for range 4 { // the busy one is used every 40 minutes; the idle one not
			c.advance(40 * time.Minute)
			if !f.authenticates(t, busy, u.ID) {
				t.Fatalf("a session used every 40 minutes ended at %v", c.now())
			}
		}
		if f.authenticates(t, idle, u.ID) {
			t.Fatal("a session unused for more than an hour authenticates")
		}
		if f.Do(t, "HEXISTS", store.KeySessions(u.ID), accounts.SessionID(idle)) != "0" {
			t.Error("the expired session is still stored")
		}
		if list := f.sessions(t, u.ID); len(list) != 1 || list[0].ID != accounts.SessionID(busy) ||
			list[0].LastUsed.Unix() != c.now().Unix() {
			t.Fatalf("sessions = %+v; want the busy one alone, used just now", list)
		}
		c.advance(40 * time.Minute) // three hours and 20 minutes from its login
		if f.authenticates(t, busy, u.ID) {
			t.Fatal("a session authenticates past its absolute expiry")
		}
	})
}

// TestLegacySecret: the secret an account had before sessions per
// device goes on working, under both cookies it was given, is listed,
// expires from its first use since, and can be ended.
func TestLegacySecret(t *testing.T) {
	t.Parallel()
	onBothWithSessions(t, func(t *testing.T, f *fixture, c *clock) {
		u := f.Register(t, "owner")
		const secret = "fea5e81ac8ca77622bed1c2132a021f9"
		f.giveLegacy(t, u.ID, secret)
		list := f.sessions(t, u.ID)
		if len(list) != 2 || !list[1].Legacy || list[1].ID != accounts.SessionID(secret) || !list[1].Created.IsZero() {
			t.Fatalf("sessions = %+v; want the sign-up's, then the old secret, unused since", list)
		}
		c.advance(time.Minute)
		for _, cookie := range []string{itoa(u.ID) + ":" + secret, secret} {
			if !f.authenticates(t, cookie, u.ID) {
				t.Fatalf("the old secret's cookie %q does not authenticate", cookie)
			}
		}
		list = f.sessions(t, u.ID)
		if len(list) != 2 || !list[0].Legacy || list[0].Created.Unix() != c.now().Unix() {
			t.Fatalf("sessions = %+v; want the old secret first, seen just now", list)
		}
		if err := f.St.EndSession(f.Ctx, u.ID, list[0].ID); err != nil {
			t.Fatal(err)
		}
		if f.authenticates(t, secret, u.ID) || f.authenticates(t, itoa(u.ID)+":"+secret, u.ID) {
			t.Fatal("the old secret authenticates once ended")
		}
		if f.Do(t, "HEXISTS", store.KeyUser(u.ID), "auth") != "0" || f.Do(t, "HGET", store.KeyAuths(secret), secret) != "" {
			t.Error("the ended secret is still in the user hash or its auths shard")
		}
		if list := f.sessions(t, u.ID); len(list) != 1 || list[0].Legacy {
			t.Fatalf("sessions after ending the old secret = %+v", list)
		}
	})
}

// TestLegacySecretExpires: the old secret expires as a session does,
// counted from its first use since sessions per device; logging out
// with it ends it.
func TestLegacySecretExpires(t *testing.T) {
	t.Parallel()
	onBothWithSessions(t, func(t *testing.T, f *fixture, c *clock) {
		u, v := f.Register(t, "owner"), f.Register(t, "other")
		f.giveLegacy(t, u.ID, "old-secret-u")
		f.giveLegacy(t, v.ID, "old-secret-v")
		for range 5 {
			c.advance(40 * time.Minute)
			if !f.authenticates(t, "old-secret-u", u.ID) {
				t.Fatalf("the old secret, used every 40 minutes, ended at %v", c.now())
			}
		}
		c.advance(40 * time.Minute)
		if f.authenticates(t, "old-secret-u", u.ID) || f.Do(t, "HEXISTS", store.KeyUser(u.ID), "auth") != "0" {
			t.Fatal("the old secret outlived its absolute expiry, counted from its first use")
		}
		if err := f.St.Logout(f.Ctx, v.ID, itoa(v.ID)+":old-secret-v"); err != nil {
			t.Fatal(err)
		}
		if f.authenticates(t, "old-secret-v", v.ID) || f.Do(t, "HEXISTS", store.KeyUser(v.ID), "auth") != "0" {
			t.Fatal("logging out with the old secret did not end it")
		}
	})
}

// TestChangePasswordEndsOtherSessions: a password change ends every
// other session, the old secret too, and gives this browser a new one;
// the API tokens are revoked, as Mastodon does.
func TestChangePasswordEndsOtherSessions(t *testing.T) {
	t.Parallel()
	onBothWithSessions(t, func(t *testing.T, f *fixture, c *clock) {
		u := f.Register(t, "owner")
		here, there := f.login(t, "owner", "here"), f.login(t, "owner", "there")
		f.giveLegacy(t, u.ID, "old-secret")
		api, err := f.St.CreateToken(f.Ctx, u.ID, "", "script", retwis.Scopes{"read"})
		if err != nil {
			t.Fatal(err)
		}
		fresh, err := f.St.ChangePassword(accounts.WithDevice(f.Ctx, accounts.Device{Name: "here"}), u.ID, "password1", "password2")
		if err != nil {
			t.Fatal(err)
		}
		for _, old := range []string{here, there, "old-secret"} {
			if f.authenticates(t, old, u.ID) {
				t.Fatalf("session %q survived the password change", old)
			}
		}
		if !f.authenticates(t, fresh, u.ID) {
			t.Fatal("the session given by the password change does not authenticate")
		}
		if list := f.sessions(t, u.ID); len(list) != 1 || list[0].ID != accounts.SessionID(fresh) || list[0].Device != "here" {
			t.Fatalf("sessions = %+v; want the new one alone", list)
		}
		if _, err := f.St.AuthenticateToken(f.Ctx, api); retwis.ErrorKind(err) != retwis.Unauthorized {
			t.Fatalf("the API token after a password change: %v; want it revoked", err)
		}
	})
}

// TestEndSessions: every session ends but the one kept (the old secret
// when it is that one), or all of them; RevokeTokens ends the tokens.
func TestEndSessions(t *testing.T) {
	t.Parallel()
	onBothWithSessions(t, func(t *testing.T, f *fixture, c *clock) {
		u := f.Register(t, "owner")
		a, b := f.login(t, "owner", "a"), f.login(t, "owner", "b")
		f.giveLegacy(t, u.ID, "old-secret")
		if err := f.St.EndSessions(f.Ctx, u.ID, "old-secret"); err != nil {
			t.Fatal(err)
		}
		if f.authenticates(t, a, u.ID) || f.authenticates(t, b, u.ID) || !f.authenticates(t, "old-secret", u.ID) {
			t.Fatal("ending the sessions but the old secret's")
		}
		a = f.login(t, "owner", "a")
		if err := f.St.EndSessions(f.Ctx, u.ID, a); err != nil {
			t.Fatal(err)
		}
		if !f.authenticates(t, a, u.ID) || f.authenticates(t, "old-secret", u.ID) {
			t.Fatal("ending the sessions but a new one")
		}
		if err := f.St.EndSessions(f.Ctx, u.ID, ""); err != nil {
			t.Fatal(err)
		}
		if f.authenticates(t, a, u.ID) || len(f.sessions(t, u.ID)) != 0 {
			t.Fatal("a session survived ending them all")
		}
		var tokens []string
		for range 2 {
			tok, err := f.St.CreateToken(f.Ctx, u.ID, "", "script", retwis.Scopes{"read"})
			if err != nil {
				t.Fatal(err)
			}
			tokens = append(tokens, tok)
		}
		if err := f.St.RevokeTokens(f.Ctx, u.ID); err != nil {
			t.Fatal(err)
		}
		for _, tok := range tokens {
			if _, err := f.St.AuthenticateToken(f.Ctx, tok); retwis.ErrorKind(err) != retwis.Unauthorized {
				t.Fatalf("a token after RevokeTokens: %v", err)
			}
		}
		if list, err := f.St.Tokens(f.Ctx, u.ID); err != nil || len(list) != 0 {
			t.Fatalf("tokens after RevokeTokens = %v, %v", list, err)
		}
	})
}

// TestEndSessionRefuses: an ID that is not a session's, or another
// user's session's, ends nothing.
func TestEndSessionRefuses(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	u, v := f.Register(t, "owner"), f.Register(t, "other")
	theirs := f.login(t, "other", "theirs")
	before := f.Snapshot(t)
	for id, kind := range map[string]retwis.Kind{
		"": retwis.Invalid, "x": retwis.Invalid, strings.Repeat("A", 64): retwis.Invalid, strings.Repeat("0", 65): retwis.Invalid,
		accounts.SessionID(theirs): retwis.NotFound, strings.Repeat("0", 64): retwis.NotFound,
	} {
		storetest.WantKind(t, f.St.EndSession(f.Ctx, u.ID, id), kind)
	}
	if after := f.Snapshot(t); !maps.Equal(after, before) || !f.authenticates(t, theirs, v.ID) {
		t.Fatal("a refused ending changed something")
	}
}

// TestSessionsBounded: an account keeps MaxSessions sessions; a login
// beyond ends the oldest.
func TestSessionsBounded(t *testing.T) {
	t.Parallel()
	f := newFixtureWith(t, redistest.Start(t).URL, sessionOpts, false)
	c := withClock(f)
	u := f.Register(t, "owner")
	first := f.login(t, "owner", "first")
	for range accounts.MaxSessions {
		c.advance(time.Second)
		f.login(t, "owner", "later")
	}
	if n := f.Do(t, "HLEN", store.KeySessions(u.ID)); n != itoa(accounts.MaxSessions) {
		t.Fatalf("%s sessions stored; want %d", n, accounts.MaxSessions)
	}
	if f.authenticates(t, first, u.ID) {
		t.Fatal("the oldest session outlived the bound")
	}
}

// TestSessionDeviceBounded: what a session keeps of its device is short
// printable text, whatever the browser sent.
func TestSessionDeviceBounded(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	u := f.Register(t, "owner")
	nasty := accounts.Device{Name: "Fire\x00fox\xff\n" + strings.Repeat("é", 200), Addr: strings.Repeat("1", 1<<20)}
	_, token, err := f.St.Login(accounts.WithDevice(f.Ctx, nasty), "owner", "password1")
	if err != nil {
		t.Fatal(err)
	}
	var d retwis.Session
	for _, s := range f.sessions(t, u.ID) {
		if s.ID == accounts.SessionID(token) {
			d = s
		}
	}
	if !strings.HasPrefix(d.Device, "Firefoxéé") || len(d.Device) > 64 || !utf8.ValidString(d.Device) || len(d.Addr) > 64 {
		t.Fatalf("device %q (%d bytes), address of %d bytes; want printable, at most 64 bytes", d.Device, len(d.Device), len(d.Addr))
	}
}

// TestEndedSessionStopsEverywhere: a session ended through one server
// stops on another that had it in its client-side cache, as soon as
// Redis's invalidation reaches it.
func TestEndedSessionStopsEverywhere(t *testing.T) {
	t.Parallel()
	for _, db := range databases {
		t.Run(db.Name, func(t *testing.T) {
			t.Parallel()
			url := db.URL(t)
			f, other := newFixtureWith(t, url, store.Options{}, false), newFixtureWith(t, url, store.Options{}, false)
			u := f.Register(t, "owner")
			token := f.login(t, "owner", "laptop")
			for _, st := range []*fixture{f, other} { // warm both caches
				for range 2 {
					if !st.authenticates(t, token, u.ID) {
						t.Fatal("the session does not authenticate")
					}
				}
			}
			before := other.RC.Calls.Load()
			if !other.authenticates(t, token, u.ID) || other.RC.Calls.Load() != before {
				t.Fatal("a warm authentication took a round trip")
			}
			if err := f.St.EndSession(f.Ctx, u.ID, accounts.SessionID(token)); err != nil {
				t.Fatal(err)
			}
			if f.authenticates(t, token, u.ID) {
				t.Fatal("the session authenticates on the server that ended it")
			}
			ctx, cancel := context.WithTimeout(f.Ctx, 5*time.Second) // the cache would keep it a minute
			defer cancel()
			for other.authenticates(t, token, u.ID) {
				if ctx.Err() != nil {
					t.Fatal("the ended session still authenticates on the other server")
				}
				time.Sleep(time.Millisecond)
			}
		})
	}
}
