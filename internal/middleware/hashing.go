package middleware

import (
	"net/http"

	"github.com/retwis/retwis/internal/password"
)

// Hashing wraps a handler that hashes passwords (logging in, signing
// up, changing a password): its request's context names the client by
// its address ([ClientAddr]) for the password hashers
// ([password.WithClient]), which serve the clients waiting in turn, so
// that a flood of logins from one address waits its own turn and not
// everyone's. Other requests hash nothing and pay nothing for it.
func (s *Stack) Hashing(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		next(w, r.WithContext(password.WithClient(r.Context(), ClientAddr(r))))
	}
}
