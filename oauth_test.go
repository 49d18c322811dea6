package retwis_test

import (
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/testkit/must"
)

func TestScopesAllow(t *testing.T) {
	for _, tc := range []struct {
		have string
		need string
		ok   bool
	}{
		{"read", "read:statuses", true},
		{"read", "write:statuses", false},
		{"write", "write:follows", true},
		{"read:statuses", "read:statuses", true},
		{"read:statuses", "read:accounts", false},
		{"follow", "write:follows", true},
		{"follow", "read:follows", true},
		{"follow", "write:statuses", false},
		{"read:accounts", "profile", true},
		{"profile", "profile", true},
		{"profile", "read:accounts", false},
		{"push", "read:statuses", false},
		{"write:statuses", "profile", false},
	} {
		sc, err := retwis.ParseScopes(tc.have)
		if err != nil {
			t.Fatal(err)
		}
		if got := sc.Allows(tc.need); got != tc.ok {
			t.Errorf("%q allows %q = %v; want %v", tc.have, tc.need, got, tc.ok)
		}
	}
}

func TestParseScopes(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		ok       bool
	}{
		{"", "read", true},
		{"read write follow push", "read write follow push", true},
		{"read+write", "read write", true},
		{"read read", "read", true},
		{"  read:statuses\twrite:media ", "read:statuses write:media", true},
		{"admin:read", "", false},
		{"read:everything", "", false},
		{"READ", "", false},
		{strings.Repeat("read ", 65), "", false},
	} {
		sc, err := retwis.ParseScopes(tc.in)
		if (err == nil) != tc.ok || tc.ok && sc.String() != tc.want {
			t.Errorf("ParseScopes(%q) = %q, %v; want %q", tc.in, sc, err, tc.want)
		}
		if err != nil && retwis.ErrorKind(err) != retwis.Invalid {
			t.Errorf("ParseScopes(%q): error of kind %v", tc.in, retwis.ErrorKind(err))
		}
	}
	app := must.Value(retwis.ParseScopes("read write"))(t)
	for in, want := range map[string]bool{"read": true, "read:statuses write:follows": true, "follow": false, "read push": false} {
		sc := must.Value(retwis.ParseScopes(in))(t)
		if got := sc.Within(app); got != want {
			t.Errorf("%q within %q = %v; want %v", in, app, got, want)
		}
	}
}

func FuzzParseScopes(f *testing.F) {
	for _, s := range []string{"read", "read write follow", "read:statuses+write:media", "x y", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sc, err := retwis.ParseScopes(s)
		if err != nil {
			return
		}
		again, err := retwis.ParseScopes(sc.String())
		if err != nil || again.String() != sc.String() {
			t.Fatalf("%q parses to %q, which parses to %q, %v", s, sc, again, err)
		}
		if !sc.Within(sc) {
			t.Fatalf("%q is not within itself", sc)
		}
	})
}

// TestVerifyPKCE checks the S256 method against RFC 7636's example
// (appendix B).
func TestVerifyPKCE(t *testing.T) {
	const verifier, challenge = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk", "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
	if !retwis.ValidChallenge(challenge) || retwis.ValidChallenge("short") || retwis.ValidChallenge(strings.Repeat("*", 43)) {
		t.Error("ValidChallenge is wrong")
	}
	g := retwis.Grant{Challenge: challenge}
	for v, want := range map[string]bool{verifier: true, "": false, verifier + "x": false, strings.Repeat("a", 43): false} {
		if got := g.VerifyPKCE(v); got != want {
			t.Errorf("VerifyPKCE(%q) = %v; want %v", v, got, want)
		}
	}
	if plain := (retwis.Grant{}); !plain.VerifyPKCE("") || plain.VerifyPKCE(verifier) {
		t.Error("a grant without a challenge must take no verifier, and only none")
	}
}

func TestValidateApp(t *testing.T) {
	ok := retwis.App{Name: "App", RedirectURIs: []string{"https://app.example/cb"}}
	for _, tc := range []struct {
		name string
		edit func(*retwis.App)
		ok   bool
	}{
		{"fine", func(*retwis.App) {}, true},
		{"out of band", func(a *retwis.App) { a.RedirectURIs = []string{retwis.OutOfBand} }, true},
		{"custom scheme", func(a *retwis.App) { a.RedirectURIs = []string{"tusky://oauth"} }, true},
		{"custom scheme alone", func(a *retwis.App) { a.RedirectURIs = []string{"icecubesapp://"} }, true},
		{"several", func(a *retwis.App) {
			a.RedirectURIs = []string{"icecubesapp://", "https://a.example/cb", retwis.OutOfBand}
		}, true},
		{"reverse domain scheme", func(a *retwis.App) { a.RedirectURIs = []string{"com.example.app://cb"} }, true},
		{"reverse domain path", func(a *retwis.App) { a.RedirectURIs = []string{"com.example.app:/oauth2redirect"} }, true},
		{"loopback", func(a *retwis.App) { a.RedirectURIs = []string{"http://127.0.0.1:8123/cb"} }, true},
		{"javascript", func(a *retwis.App) { a.RedirectURIs = []string{"javascript:alert(document.domain)//"} }, false},
		{"javascript in capitals", func(a *retwis.App) { a.RedirectURIs = []string{"JavaScript:alert(1)"} }, false},
		{"data", func(a *retwis.App) { a.RedirectURIs = []string{"data:text/html,<script>alert(1)</script>"} }, false},
		{"vbscript", func(a *retwis.App) { a.RedirectURIs = []string{"vbscript:msgbox(1)"} }, false},
		{"file", func(a *retwis.App) { a.RedirectURIs = []string{"file:///etc/passwd"} }, false},
		{"about", func(a *retwis.App) { a.RedirectURIs = []string{"about:blank"} }, false},
		{"blob", func(a *retwis.App) { a.RedirectURIs = []string{"blob:https://a.example/1"} }, false},
		{"filesystem", func(a *retwis.App) { a.RedirectURIs = []string{"filesystem:https://a.example/x"} }, false},
		{"view-source", func(a *retwis.App) { a.RedirectURIs = []string{"view-source:https://a.example/"} }, false},
		{"https without host", func(a *retwis.App) { a.RedirectURIs = []string{"https:/cb"} }, false},
		{"one bad of two", func(a *retwis.App) { a.RedirectURIs = []string{"app://cb", "data:,x"} }, false},
		{"reversing name", func(a *retwis.App) { a.Name = "App\u202eevil" }, false},
		{"control in name", func(a *retwis.App) { a.Name = "App\nline" }, false},
		{"blank name", func(a *retwis.App) { a.Name = "\u3164" }, false},
		{"no name", func(a *retwis.App) { a.Name = "" }, false},
		{"long name", func(a *retwis.App) { a.Name = strings.Repeat("n", 101) }, false},
		{"no redirect", func(a *retwis.App) { a.RedirectURIs = nil }, false},
		{"relative redirect", func(a *retwis.App) { a.RedirectURIs = []string{"/cb"} }, false},
		{"fragment", func(a *retwis.App) { a.RedirectURIs = []string{"https://a.example/#x"} }, false},
		{"empty fragment", func(a *retwis.App) { a.RedirectURIs = []string{"app:0#"} }, false},
		{"many redirects", func(a *retwis.App) { a.RedirectURIs = make([]string, 11) }, false},
		{"website", func(a *retwis.App) { a.Website = "https://app.example" }, true},
		{"javascript website", func(a *retwis.App) { a.Website = "javascript:alert(1)" }, false},
	} {
		a := ok
		tc.edit(&a)
		if err := retwis.ValidateApp(a); (err == nil) != tc.ok {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
}

func TestNormalizeTokenName(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"bot", "bot"},
		{"  my bot\t\n", "my bot"},
		{strings.Repeat("é", retwis.MaxAppNameLen), strings.Repeat("é", retwis.MaxAppNameLen)},
		{"", ""},
		{" \t ", ""},
		{strings.Repeat("n", retwis.MaxAppNameLen+1), ""},
		{"bot\u202e", ""}, {"\u2800", ""}, {"a\x07", ""},
	} {
		got, err := retwis.NormalizeTokenName(tc.in)
		if got != tc.want || (err == nil) != (tc.want != "") || err != nil && retwis.ErrorKind(err) != retwis.Invalid {
			t.Errorf("NormalizeTokenName(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}

// FuzzValidateApp: whatever an app registers, it is refused with a
// message or has a name and redirect URIs within the bounds.
func FuzzValidateApp(f *testing.F) {
	for _, seed := range [][3]string{{"App", "https://a.example/cb", ""}, {"x", "urn:ietf:wg:oauth:2.0:oob", "javascript:x"},
		{"", "/relative", "https://site"}, {"\xff", "app://cb#frag", "http://"},
		{"a\u202e", "JAVASCRIPT:x", ""}, {"b", "data:,x", ""}, {"c", "com.example.app://cb", ""}} {
		f.Add(seed[0], seed[1], seed[2])
	}
	f.Fuzz(func(t *testing.T, name, redirect, website string) {
		err := retwis.ValidateApp(retwis.App{Name: name, RedirectURIs: []string{redirect}, Website: website})
		if err != nil {
			if retwis.ErrorKind(err) != retwis.Invalid || retwis.ErrorMessage(err) == "" {
				t.Fatalf("%v: not a clear Invalid error", err)
			}
			return
		}
		if n := len([]rune(name)); n == 0 || n > retwis.MaxAppNameLen || strings.ContainsAny(redirect, " \n#") && redirect != retwis.OutOfBand {
			t.Fatalf("accepted %q, %q", name, redirect)
		}
		if strings.ContainsFunc(name, retwis.IsBidiControl) || retwis.RedirectScheme(redirect) != nil {
			t.Fatalf("accepted %q, %q: a direction control or a refused scheme", name, redirect)
		}
		if u, err := url.Parse(redirect); err == nil && slices.Contains([]string{"javascript", "data", "file", "vbscript"}, strings.ToLower(u.Scheme)) {
			t.Fatalf("accepted the redirect URI %q", redirect)
		}
	})
}

func TestParseRedirectURIs(t *testing.T) {
	for _, tc := range []struct {
		in   []string
		want []string // nil: refused
	}{
		{[]string{"icecubesapp://"}, []string{"icecubesapp://"}},
		{[]string{"icecubesapp://\ncom.example.app:/cb\r\n"}, []string{"icecubesapp://", "com.example.app:/cb"}},
		{[]string{"https://a.example/cb", "tusky://oauth", "https://a.example/cb"}, []string{"https://a.example/cb", "tusky://oauth"}},
		{[]string{retwis.OutOfBand}, []string{retwis.OutOfBand}},
		{[]string{"", " \n "}, nil},
		{nil, nil},
		{[]string{"app://cb\njavascript:alert(1)"}, nil},
		{[]string{"app://cb#x"}, nil},
		{[]string{"/relative"}, nil},
		{[]string{strings.Repeat("a://b\n", 3) + strings.Repeat("x", 2001) + "://"}, nil},
		{[]string{strings.Repeat("a://b ", 10)}, []string{"a://b"}},
		{strings.Fields("a:1 a:2 a:3 a:4 a:5 a:6 a:7 a:8 a:9 a:10 a:11"), nil},
	} {
		got, err := retwis.ParseRedirectURIs(tc.in)
		if !slices.Equal(got, tc.want) || (err == nil) != (tc.want != nil) {
			t.Errorf("ParseRedirectURIs(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}

// FuzzParseRedirectURIs: whatever an app sends as its redirect URIs,
// they are refused with a clear message, or are 1 to MaxRedirectURIs
// distinct URIs of the input, each with a scheme, no fragment or white
// space, of no refused scheme, which ValidateApp accepts.
func FuzzParseRedirectURIs(f *testing.F) {
	for _, seed := range [][2]string{{"icecubesapp://", ""}, {"https://a.example/cb\ncom.example:/x", "tusky://oauth"},
		{"javascript:alert(1)", "app://cb"}, {"data:,x\nfile:///etc", "JAVASCRIPT:x"}, {"a:#", " "}, {"urn:ietf:wg:oauth:2.0:oob", "http:x"}} {
		f.Add(seed[0], seed[1])
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		in := []string{a, b}
		got, err := retwis.ParseRedirectURIs(in)
		if err != nil {
			if got != nil || retwis.ErrorKind(err) != retwis.Invalid || retwis.ErrorMessage(err) == "" {
				t.Fatalf("%q, %v: not a clear Invalid error", got, err)
			}
			return
		}
		if len(got) == 0 || len(got) > retwis.MaxRedirectURIs || len(slices.Compact(slices.Sorted(slices.Values(got)))) != len(got) {
			t.Fatalf("%q: not 1 to %d distinct URIs", got, retwis.MaxRedirectURIs)
		}
		for _, u := range got {
			p, err := url.Parse(u)
			switch {
			case !strings.Contains(a, u) && !strings.Contains(b, u), err != nil, p.Scheme == "", len(u) > 2000,
				strings.ContainsAny(u, "# \t\r\n\v\f"), retwis.RedirectScheme(u) != nil,
				slices.Contains([]string{"javascript", "data", "file", "vbscript"}, strings.ToLower(p.Scheme)):
				t.Fatalf("accepted %q of %q", u, in)
			}
		}
		if err := retwis.ValidateApp(retwis.App{Name: "App", RedirectURIs: got}); err != nil {
			t.Fatalf("%q parsed, but refused: %v", got, err)
		}
	})
}
