package web_test

import (
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"testing"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/mux"
	"github.com/retwis/retwis/internal/testkit/must"
	"github.com/retwis/retwis/internal/web"
)

func TestWelcomeAndSignUp(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	b := s.browser()
	expect(t, b.get("/"), 200, `action="/login"`, `action="/register"`, `name="password2"`)

	r := b.post("/register", url.Values{"username": {"Alice"}, "password": {"password1"}, "password2": {"password1"}})
	redirects(t, r, "/")
	c := r.header.Get("Set-Cookie")
	for _, attr := range []string{retwis.SessionCookie + "=", "HttpOnly", "SameSite=Lax", "Path=/"} {
		if !strings.Contains(c, attr) {
			t.Fatalf("cookie %q lacks %s", c, attr)
		}
	}
	if strings.Contains(c, "Secure") {
		t.Fatalf("cookie %q is Secure over plain HTTP: it would never be sent back", c)
	}
	expect(t, b.get("/"), 200, "Hi, Alice", `action="/post"`, "0</strong> followers")
}

func TestSecureCookieOverTLS(t *testing.T) {
	t.Parallel()
	r := redistestStart(t)
	s := newSiteAt(t, r, httptest.NewTLSServer)
	res := s.browser().post("/register", url.Values{"username": {"tls"}, "password": {"password1"}, "password2": {"password1"}})
	if c := res.header.Get("Set-Cookie"); !strings.Contains(c, "Secure") {
		t.Fatalf("cookie over TLS is not Secure: %q", c)
	}
}

// TestSecureCookiesBehindProxy runs the server as behind a proxy that
// terminates TLS: plain HTTP reaches it, and the cookie is Secure all
// the same.
func TestSecureCookiesBehindProxy(t *testing.T) {
	t.Parallel()
	s := newSiteWith(t, redistestStart(t), httptest.NewServer, mux.Options{Pages: web.Options{SecureCookies: true}})
	res := s.browser().post("/register", url.Values{"username": {"proxied"}, "password": {"password1"}, "password2": {"password1"}})
	if c := res.header.Get("Set-Cookie"); !strings.Contains(c, "Secure") {
		t.Fatalf("cookie with SecureCookies is not Secure: %q", c)
	}
}

// TestForwardedHeaders: a sign-up that says it came over HTTPS
// (X-Forwarded-Proto) from another address (X-Forwarded-For) is believed
// from a trusted proxy only: then, and only then, its cookie is Secure,
// its answer carries HSTS and its session is listed at the forwarded
// address.
func TestForwardedHeaders(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		proxies []netip.Prefix
		secure  bool
		addr    string
	}{
		{"untrusted client", nil, false, "127.0.0.1"},
		{"trusted proxy", []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}, true, "203.0.113.9"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newSiteWith(t, redistestStart(t), httptest.NewServer, mux.Options{Proxies: tc.proxies})
			form := url.Values{"username": {"forwarded"}, "password": {"password1"}, "password2": {"password1"}}
			res := s.browser().postRaw("/register", form.Encode(),
				http.Header{"X-Forwarded-Proto": {"https"}, "X-Forwarded-For": {"203.0.113.9"}})
			redirects(t, res, "/")
			if c := res.header.Get("Set-Cookie"); strings.Contains(c, "Secure") != tc.secure {
				t.Errorf("cookie %q; want Secure: %v", c, tc.secure)
			}
			if hsts := res.header.Get("Strict-Transport-Security") != ""; hsts != tc.secure {
				t.Errorf("HSTS sent: %v; want %v", hsts, tc.secure)
			}
			u, err := s.st.UserByName(t.Context(), "forwarded")
			if err != nil {
				t.Fatal(err)
			}
			if sessions, err := s.st.Sessions(t.Context(), u.ID); err != nil || len(sessions) != 1 || sessions[0].Addr != tc.addr {
				t.Errorf("sessions %+v, %v; want one from %s", sessions, err, tc.addr)
			}
		})
	}
}

func TestSignUpErrorsWriteNothing(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	s.browser().signUp("Taken")
	before := s.snapshot()
	for _, tc := range []struct {
		name, body string
		status     int
		msg        string
	}{
		{"mismatch", "username=bob&password=password1&password2=password2", 400, "do not match"},
		{"short password", "username=bob&password=short&password2=short", 400, "at least 8"},
		{"long password", "username=bob&password=" + strings.Repeat("p", 129) + "&password2=" + strings.Repeat("p", 129), 400, "at most 128"},
		{"empty name", "username=&password=password1&password2=password1", 400, "choose a username"},
		{"bad name", "username=bo+b&password=password1&password2=password1", 400, "letters, digits"},
		{"script name", "username=%3Cscript%3E&password=password1&password2=password1", 400, "letters, digits"},
		{"long name", "username=" + strings.Repeat("b", 33) + "&password=password1&password2=password1", 400, "at most 32"},
		{"taken", "username=Taken&password=password1&password2=password1", 409, "already taken"},
		{"taken other case", "username=taken&password=password1&password2=password1", 409, "already taken"},
		{"invalid utf-8", "username=b%FFb&password=password1&password2=password1", 400, "not valid UTF-8"},
		{"missing fields", "", 400, "choose a username"},
		{"oversized", "username=bob&password=" + strings.Repeat("x", 20000), 413, "too large"},
		{"malformed", "username=%zz", 400, "could not be read"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := s.browser()
			r := b.postRaw("/register", tc.body, nil)
			expect(t, r, tc.status, tc.msg, `action="/register"`)
			if b.cookie() != "" {
				t.Fatal("a failed sign-up set a cookie")
			}
			s.assertUnchanged(before)
		})
	}
}

func TestLoginLogout(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	alice := s.browser()
	alice.signUp("alice")
	old := alice.cookie()

	// Log out: the session ends, so a copy of the old cookie stops working.
	redirects(t, alice.post("/logout", nil), "/")
	if alice.cookie() != "" {
		t.Fatal("logout did not clear the cookie")
	}
	thief := s.browser()
	req := must.Value(http.NewRequest("GET", s.srv.URL+"/", nil))(t)
	req.AddCookie(authCookie(old))
	expect(t, thief.send(req), 200, `action="/login"`)
	req = must.Value(http.NewRequest("POST", s.srv.URL+"/post", strings.NewReader("status=stolen")))(t)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.AddCookie(authCookie(old))
	redirects(t, thief.send(req), "/")
	if n := must.Value(s.do("EXISTS", "next_post_id").AsInt64())(t); n != 0 {
		t.Fatal("a post was written with a dead cookie")
	}

	wrong := alice.post("/login", url.Values{"username": {"alice"}, "password": {"wrong password"}})
	unknown := alice.post("/login", url.Values{"username": {"nobody"}, "password": {"password1"}})
	expect(t, wrong, 401, "Wrong username or password.")
	expect(t, unknown, 401, "Wrong username or password.")
	expect(t, alice.post("/login", url.Values{"username": {"alice"}}), 400, "both username and password")

	redirects(t, alice.post("/login", url.Values{"username": {"ALICE"}, "password": {"password1"}}), "/")
	if c := alice.cookie(); c == "" || c == old {
		t.Fatalf("login after logout gave cookie %q (old %q)", c, old)
	}
	expect(t, alice.get("/"), 200, "Hi, alice")
}

// TestLegacyLogin logs in to an account written by the original Retwis.
func TestLegacyLogin(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	s.exec("HSET", "user:1000", "username", "antirez", "password", "p1pp0p1pp0", "auth", "fea5e81ac8ca77622bed1c2132a021f9")
	s.exec("HSET", "users", "antirez", "1000")
	s.exec("HSET", "auths", "fea5e81ac8ca77622bed1c2132a021f9", "1000")
	s.remigrate()
	b := s.browser()
	redirects(t, b.post("/login", url.Values{"username": {"antirez"}, "password": {"p1pp0p1pp0"}}), "/")
	if c := b.cookie(); !strings.HasPrefix(c, "1000:") || strings.Contains(c, "fea5e81ac8ca77622bed1c2132a021f9") {
		t.Fatalf("cookie = %q; want the user id and the secret of a new session", b.cookie())
	}
	if n := must.Value(s.do("HEXISTS", "user:{1000}", "password").AsInt64())(t); n != 0 {
		t.Fatal("plaintext password kept after login")
	}
	expect(t, b.get("/"), 200, "Hi, antirez")
	old := s.browser() // the browser that logged in with the PHP Retwis is still logged in
	old.setCookie("fea5e81ac8ca77622bed1c2132a021f9")
	expect(t, old.get("/"), 200, "Hi, antirez")
}

func TestLoginRequired(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	s.browser().signUp("target")
	before := s.snapshot()
	b := s.browser()
	for _, path := range []string{"/post", "/logout", "/u/target/follow", "/u/target/unfollow"} {
		redirects(t, b.post(path, url.Values{"status": {"hi"}}), "/")
	}
	s.assertUnchanged(before)
}

func TestCrossOriginRefused(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	b := s.browser()
	b.signUp("victim")
	before := s.snapshot()
	for _, h := range []http.Header{
		{"Sec-Fetch-Site": {"cross-site"}},
		{"Origin": {"https://evil.example"}},
	} {
		expect(t, b.postRaw("/post", "status=pwned", h), 403, "another site")
		expect(t, b.postRaw("/logout", "", h), 403)
	}
	s.assertUnchanged(before)
	redirects(t, b.postRaw("/post", "status=mine", http.Header{"Sec-Fetch-Site": {"same-origin"}}), "/")
}
