package accounts

import (
	"context"
	"strconv"
	"strings"

	"github.com/retwis/retwis/internal/store/index"
	"github.com/retwis/retwis/internal/store/schema"
)

// What a Revocation ends.
const (
	RevokedToken    = "token"    // one API token, Ref its ID
	RevokedTokens   = "tokens"   // every API token of the account
	RevokedSession  = "session"  // one session, Ref its ID
	RevokedSessions = "sessions" // every session of the account but Ref ("" none)
)

// Revocation is access to an account taken away, as every server hears
// of it (on schema.Revocations), so that it ends the live streams that
// access opened: a token revoked, a session ended, all of either.
type Revocation struct {
	What string // RevokedToken, RevokedTokens, RevokedSession or RevokedSessions
	User int64
	Ref  string // the token's or session's ID, as Tokens and Sessions list them
}

// Access is what a live stream was opened with: a user's API token or
// session, by its ID (retwis.Token's ID, or SessionID of its cookie).
type Access struct {
	User    int64
	Token   string // the token's ID, if it came with one
	Session string // the session's ID, if it came with one
}

// Ends reports whether r takes a away.
func (r Revocation) Ends(a Access) bool {
	if a.User != r.User || a.User == 0 {
		return false
	}
	switch r.What {
	case RevokedToken:
		return a.Token != "" && a.Token == r.Ref
	case RevokedTokens:
		return a.Token != ""
	case RevokedSession:
		return a.Session != "" && a.Session == r.Ref
	case RevokedSessions:
		return a.Session != "" && a.Session != r.Ref
	}
	return false
}

// ParseRevocation reads the rest of a revocation's message, after
// "revoke:" (schema.RevocationEvent).
func ParseRevocation(rest string) (Revocation, bool) {
	what, rest, _ := strings.Cut(rest, ":")
	user, ref, found := strings.Cut(rest, ":")
	uid, err := strconv.ParseInt(user, 10, 64)
	if !found || err != nil || uid <= 0 {
		return Revocation{}, false
	}
	r := Revocation{What: what, User: uid, Ref: ref}
	switch what {
	case RevokedToken, RevokedSession:
		return r, ref != ""
	case RevokedTokens, RevokedSessions:
		return r, true
	}
	return Revocation{}, false
}

// revoked tells every server that r's access ended, once it has: they
// end the live streams it opened. The access is gone whether or not the
// news goes out, so a failure is logged, not returned.
func (s *Store) revoked(ctx context.Context, r Revocation) {
	msg := schema.RevocationEvent(r.What, r.User, r.Ref)
	if err := s.C.Do(ctx, index.PublishCmd(s.C, schema.Revocations, msg)).Error(); err != nil {
		s.Log.Warn("live streams of access taken away stay open until they end", "user", r.User, "revoked", r.What, "err", err)
	}
}
