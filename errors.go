package retwis

import (
	"errors"
	"fmt"
)

// Kind classifies an error so that every adapter can react to it the same
// way; internal/middleware maps each kind to an HTTP status in one place.
type Kind int

// The kinds of error. The zero value is Internal, so an error nobody
// classified is never mistaken for the user's fault.
const (
	Internal     Kind = iota // a bug or an unexpected reply
	Invalid                  // the input breaks a rule; nothing was written
	Conflict                 // the input clashes with existing state (a taken username)
	NotFound                 // the thing asked for does not exist
	Unauthorized             // wrong credentials or no valid session
	Unavailable              // the database cannot be reached right now
	Forbidden                // logged in, but not allowed to do this
	Canceled                 // the request was cancelled by its client; nothing was written
	TooMany                  // a rate limit refused it; nothing was written (see Limited)
)

var kindNames = [...]string{
	Internal:     "internal",
	Invalid:      "invalid",
	Conflict:     "conflict",
	NotFound:     "not found",
	Unauthorized: "unauthorized",
	Unavailable:  "unavailable",
	Forbidden:    "forbidden",
	Canceled:     "canceled",
	TooMany:      "too many",
}

// String returns the kind's name.
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", int(k))
}

// Error is a domain error: a kind, a message fit to show a user, and the
// underlying cause, if any, for the logs.
type Error struct {
	Kind    Kind
	Message string
	Err     error
}

// Errorf returns an *Error of the given kind whose message is formatted
// from format and args. The message is shown to users, so it must not
// leak internals.
func Errorf(kind Kind, format string, args ...any) *Error {
	return &Error{Kind: kind, Message: fmt.Sprintf(format, args...)}
}

// Error implements the error interface.
func (e *Error) Error() string {
	if e.Err == nil {
		return e.Message
	}
	if e.Message == "" {
		return e.Err.Error()
	}
	return e.Message + ": " + e.Err.Error()
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// ErrorKind returns the kind of the first *Error in err's chain, or
// Internal when there is none.
func ErrorKind(err error) Kind {
	if e, ok := errors.AsType[*Error](err); ok {
		return e.Kind
	}
	return Internal
}

// ErrorMessage returns the user-facing message of the first *Error in
// err's chain, or a generic message that reveals nothing.
func ErrorMessage(err error) string {
	if e, ok := errors.AsType[*Error](err); ok && e.Message != "" {
		return e.Message
	}
	return "Something went wrong on our side. Please try again."
}
