package accounts

import (
	"strings"
	"testing"

	"github.com/retwis/retwis/internal/store/schema"
)

// TestRevocationEnds: each revocation, sent and read back, ends the
// access it names and no other.
func TestRevocationEnds(t *testing.T) {
	token := Access{User: 7, Token: "t1"}
	otherToken := Access{User: 7, Token: "t2"}
	session := Access{User: 7, Session: "s1"}
	otherSession := Access{User: 7, Session: "s2"}
	otherUser := Access{User: 8, Token: "t1", Session: "s1"}
	all := []Access{token, otherToken, session, otherSession, otherUser}
	for _, tc := range []struct {
		sent Revocation
		ends []Access
	}{
		{Revocation{RevokedToken, 7, "t1"}, []Access{token}},
		{Revocation{RevokedTokens, 7, ""}, []Access{token, otherToken}},
		{Revocation{RevokedSession, 7, "s1"}, []Access{session}},
		{Revocation{RevokedSessions, 7, "s2"}, []Access{session}},
		{Revocation{RevokedSessions, 7, ""}, []Access{session, otherSession}},
	} {
		msg := schema.RevocationEvent(tc.sent.What, tc.sent.User, tc.sent.Ref)
		kind, rest, _ := strings.Cut(msg, ":")
		r, ok := ParseRevocation(rest)
		if kind != schema.EventRevoke || !ok || r != tc.sent {
			t.Fatalf("%q read back as %s %+v %v; want %+v", msg, kind, r, ok, tc.sent)
		}
		for _, a := range all {
			want := false
			for _, e := range tc.ends {
				want = want || e == a
			}
			if r.Ends(a) != want {
				t.Errorf("%+v ends %+v: %v; want %v", r, a, !want, want)
			}
		}
	}
	for _, bad := range []string{"", "token:7:", "session:0:x", "token:x:y", "nothing:7:x", "tokens:7"} {
		if r, ok := ParseRevocation(bad); ok {
			t.Errorf("ParseRevocation(%q) = %+v; want it refused", bad, r)
		}
	}
}
