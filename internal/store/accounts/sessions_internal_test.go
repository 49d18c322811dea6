package accounts

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// FuzzParseToken feeds the cookie's parser what a browser may send: a
// token that parses names a user and a secret it ends with, one that
// does not is a secret whole, and every token has a session ID of the
// right shape.
func FuzzParseToken(f *testing.F) {
	for _, seed := range []string{"", ":", "1:", ":x", "1:x", "42:fea5e81ac8ca77622bed1c2132a021f9", "fea5e81ac8ca77622bed1c2132a021f9",
		"0:x", "-1:x", "+1:x", "007:x", "1:x:y", "9223372036854775807:x", "9223372036854775808:x", "99999999999999999999999:x",
		"1\x00:x", "1:\x00", "\xff\xfe:\xff", "1:\xc3\x28", "١:x", " 1:x", strings.Repeat("9", 1000) + ":x"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, token string) {
		uid, secret, ok := parseToken(token)
		if ok && (uid <= 0 || secret == "" || !strings.HasSuffix(token, ":"+secret)) {
			t.Fatalf("parseToken(%q) = %d, %q: want a positive id and the secret after it", token, uid, secret)
		}
		if !ok && secret != token {
			t.Fatalf("parseToken(%q): not a token with an id, yet the secret is %q", token, secret)
		}
		if id := SessionID(token); !validID(id) {
			t.Fatalf("SessionID(%q) = %q: not a session ID", token, id)
		}
	})
}

// FuzzPrintable: what a session keeps of its device is valid UTF-8,
// without control characters, within its bound, whatever was sent.
func FuzzPrintable(f *testing.F) {
	for _, seed := range []string{"", "Firefox on Linux", "\x00\x01\n\t", "\xff\xfe", "é" + strings.Repeat("€", 30), strings.Repeat("a", 1000)} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p := printable(s, maxDeviceBytes)
		if len(p) > maxDeviceBytes || !utf8.ValidString(p) || strings.ContainsFunc(p, unicode.IsControl) {
			t.Fatalf("printable(%q) = %q", s, p)
		}
	})
}
