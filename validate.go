package retwis

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Limits on user input. They bound every value a user can store.
const (
	MaxUsernameLen    = 32  // characters (all ASCII)
	MinPasswordLen    = 8   // characters
	MaxPasswordBytes  = 128 // bytes, so hashing cost is bounded
	MaxStatusLen      = 280 // Unicode code points, after normalisation
	maxStatusRawBytes = 4 * 4096
	// MaxIdempotencyKeyLen bounds the idempotency key a post is sent
	// with (the API's Idempotency-Key header), in bytes: a longer one is
	// refused, by the API before anything else and by the store before
	// anything is written.
	MaxIdempotencyKeyLen = 128
)

// ValidateUsername checks a username for registration: 1–32 characters,
// each an ASCII letter, digit or underscore.
func ValidateUsername(name string) error {
	if name == "" {
		return Errorf(Invalid, "Please choose a username.")
	}
	if len(name) > MaxUsernameLen {
		return Errorf(Invalid, "Usernames are at most %d characters long.", MaxUsernameLen)
	}
	for _, c := range []byte(name) {
		if !isNameByte(c) {
			return Errorf(Invalid, "Usernames may contain only letters, digits and underscores.")
		}
	}
	return nil
}

func isNameByte(c byte) bool {
	return c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// FoldUsername returns the form of a username used to enforce uniqueness
// regardless of case. Only ASCII letters are folded: the username
// alphabet is ASCII, and Unicode case mapping would fold characters
// outside it into real names (the Kelvin sign into "k", "İ" into "i").
func FoldUsername(name string) string {
	b := []byte(name)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// IsUsernameShaped reports whether name uses only the username alphabet
// and length, so that it could belong to an account created by retwis.
func IsUsernameShaped(name string) bool { return ValidateUsername(name) == nil }

// ValidatePassword checks a new password: valid UTF-8, at least 8
// characters and at most 128 bytes. Whether the user typed it twice alike
// is a matter of the form, not of the domain.
func ValidatePassword(password string) error {
	switch {
	case !utf8.ValidString(password):
		return Errorf(Invalid, "Passwords must be valid UTF-8 text.")
	case utf8.RuneCountInString(password) < MinPasswordLen:
		return Errorf(Invalid, "Passwords must be at least %d characters long.", MinPasswordLen)
	case len(password) > MaxPasswordBytes:
		return Errorf(Invalid, "Passwords must be at most %d bytes long.", MaxPasswordBytes)
	}
	return nil
}

// NormalizeStatus turns the text of a status update into the body that is
// stored: line breaks become spaces (as in the original Retwis), the
// result is trimmed and must hold 1–280 code points and no other control
// characters.
func NormalizeStatus(text string) (string, error) {
	if len(text) > maxStatusRawBytes {
		return "", Errorf(Invalid, "Posts are at most %d characters long.", MaxStatusLen)
	}
	if !utf8.ValidString(text) {
		return "", Errorf(Invalid, "Posts must be valid UTF-8 text.")
	}
	text = strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(text)
	text = strings.TrimSpace(text)
	n := utf8.RuneCountInString(text)
	switch {
	case n == 0 || !strings.ContainsFunc(text, isVisible):
		return "", Errorf(Invalid, "Please write something to post.")
	case n > MaxStatusLen:
		return "", Errorf(Invalid, "Posts are at most %d characters long (this one has %d).", MaxStatusLen, n)
	case strings.ContainsFunc(text, isForbiddenControl):
		return "", Errorf(Invalid, "Posts may not contain control characters.")
	}
	return text, nil
}

func isForbiddenControl(r rune) bool { return r != '\t' && unicode.IsControl(r) }

// isVisible reports whether r shows as something on the page: a letter,
// digit, punctuation or symbol. Spaces, format characters (zero-width
// spaces and joiners, direction marks) and lone combining marks do not.
func isVisible(r rune) bool {
	return unicode.In(r, unicode.L, unicode.N, unicode.P, unicode.S)
}
