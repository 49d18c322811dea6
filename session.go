package retwis

import "time"

// SessionCookie is the name of the cookie that carries a session's
// secret, as in the original Retwis: the pages set it at login, and
// whoever acts as a logged-in browser (the live streams, the benchmarks)
// sends it.
const SessionCookie = "auth"

// Session is one login to the pages, on one device, as its owner sees
// it listed (never the secret itself): each login makes its own, which
// ends when its owner logs out there or ends it, after a spell without
// use, or at its absolute expiry, whichever comes first.
type Session struct {
	// ID names the session in its owner's list: a hash of its secret.
	ID string
	// Device says, shortly, what the browser said it was ("Firefox on
	// Linux"); Addr the client address it logged in from.
	Device string
	Addr   string
	// Created is when it began; LastUsed when it was last used, to within
	// a few minutes; Expires when it ends unless used before, or at the
	// latest. Created and LastUsed are zero for a Legacy secret not used
	// since sessions per device came.
	Created  time.Time
	LastUsed time.Time
	Expires  time.Time
	// Legacy marks the one secret an account had before sessions per
	// device, shared by every device it logged in on then.
	Legacy bool
}
