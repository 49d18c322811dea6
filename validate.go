package retwis

import (
	"net/mail"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Limits on user input. They bound every value a user can store.
const (
	MaxUsernameLen   = 32  // characters (all ASCII)
	MinPasswordLen   = 8   // characters
	MaxPasswordBytes = 128 // bytes, so hashing cost is bounded
	MaxEmailBytes    = 254 // bytes: the longest address SMTP carries (RFC 5321)
	// DefaultMaxStatusLen is how long a post may be unless the instance
	// says otherwise (retwis serve --max-post-chars), counted as
	// StatusLength counts; MaxStatusLenCeiling bounds what an instance
	// may say.
	DefaultMaxStatusLen = 500
	MaxStatusLenCeiling = 5000
	// URLLength is what a link counts for in a post's length, however
	// long its address (Mastodon's characters_reserved_per_url).
	URLLength = 23
	// maxBlankLines is how many blank lines in a row a post keeps.
	maxBlankLines = 1
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

// ValidateEmail checks an e-mail address given at sign-up: a bare
// address (no display name, no angle brackets) as RFC 5322 spells it,
// with a domain, of at most MaxEmailBytes.
func ValidateEmail(addr string) error {
	switch {
	case addr == "":
		return Errorf(Invalid, "Please give an e-mail address.")
	case len(addr) > MaxEmailBytes:
		return Errorf(Invalid, "E-mail addresses are at most %d bytes long.", MaxEmailBytes)
	}
	a, err := mail.ParseAddress(addr)
	if err != nil || a.Name != "" || a.Address != addr || !strings.Contains(addr[strings.LastIndexByte(addr, '@')+1:], ".") {
		return Errorf(Invalid, "That is not an e-mail address.")
	}
	return nil
}

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
// stored: line breaks are kept, as "\n" ("\r\n" and "\r" become one),
// spaces at the end of each line are dropped, more than one blank line
// in a row becomes one, and the whole is trimmed. The result must show
// something, hold no control characters but tabs and line breaks, and be
// at most maxLen long as StatusLength counts (a link counts as URLLength).
func NormalizeStatus(text string, maxLen int) (string, error) {
	if len(text) > maxStatusBytes(maxLen) {
		return "", Errorf(Invalid, "Posts are at most %d characters long.", maxLen)
	}
	if !utf8.ValidString(text) {
		return "", Errorf(Invalid, "Posts must be valid UTF-8 text.")
	}
	text = normalizeLines(text)
	switch {
	case text == "" || !strings.ContainsFunc(text, isVisible):
		return "", Errorf(Invalid, "Please write something to post.")
	case strings.ContainsFunc(text, isPostControl):
		return "", Errorf(Invalid, "Posts may not contain control characters.")
	}
	if n := StatusLength(text); n > maxLen {
		return "", Errorf(Invalid, "Posts are at most %d characters long, a link counting as %d (this one has %d).", maxLen, URLLength, n)
	}
	return text, nil
}

// NormalizePost normalizes a post's text as NormalizeStatus does and its
// content warning ("": none) as NormalizeWarning does, and counts them
// together against maxLen, as Mastodon counts spoiler_text with the
// text, so that the counters of apps agree.
func NormalizePost(text, warning string, maxLen int) (body, cw string, err error) {
	if cw, err = NormalizeWarning(warning, maxLen); err != nil {
		return "", "", err
	}
	if body, err = NormalizeStatus(text, maxLen); err != nil {
		return "", "", err
	}
	if n := StatusLength(cw) + StatusLength(body); cw != "" && n > maxLen {
		return "", "", Errorf(Invalid, "Posts are at most %d characters long, the content warning and the text together, a link counting as %d (this one has %d).", maxLen, URLLength, n)
	}
	return body, cw, nil
}

// NormalizeCaption is NormalizePost of a post with media pictures: with
// one or more, its text may be empty, the pictures saying it, as on
// Mastodon (the text is then "").
func NormalizeCaption(text, warning string, maxLen, media int) (body, cw string, err error) {
	if media == 0 || strings.ContainsFunc(text, isVisible) {
		return NormalizePost(text, warning, maxLen)
	}
	cw, err = NormalizeWarning(warning, maxLen)
	return "", cw, err
}

// NormalizeWarning turns a post's content warning into the one line that
// is stored: every run of spaces, tabs and line breaks becomes one space,
// and the whole is trimmed. A warning that shows nothing is none (""). It
// may hold no other control characters, and is at most maxLen long as
// StatusLength counts.
func NormalizeWarning(warning string, maxLen int) (string, error) {
	if len(warning) > maxStatusBytes(maxLen) {
		return "", Errorf(Invalid, "Content warnings are at most %d characters long.", maxLen)
	}
	if !utf8.ValidString(warning) {
		return "", Errorf(Invalid, "Content warnings must be valid UTF-8 text.")
	}
	warning = strings.Join(strings.Fields(warning), " ")
	switch {
	case !strings.ContainsFunc(warning, isVisible):
		return "", nil
	case strings.ContainsFunc(warning, unicode.IsControl):
		return "", Errorf(Invalid, "Content warnings may not contain control characters.")
	}
	if n := StatusLength(warning); n > maxLen {
		return "", Errorf(Invalid, "Content warnings are at most %d characters long (this one has %d).", maxLen, n)
	}
	return warning, nil
}

// maxStatusBytes bounds the bytes of a post's text before it is
// normalized: a link of the longest (maxURLBytes) for every URLLength
// characters, and room for the spaces trimmed.
func maxStatusBytes(maxLen int) int { return maxLen*(maxURLBytes/URLLength+1) + 4*4096 }

// normalizeLines turns every line break of text into "\n", drops the
// spaces that end lines and the blank lines beyond maxBlankLines in a
// row, and trims text.
func normalizeLines(text string) string {
	text = strings.NewReplacer("\r\n", "\n", "\r", "\n").Replace(text)
	var b strings.Builder
	blank := 0
	for line := range strings.SplitSeq(strings.TrimSpace(text), "\n") {
		line = strings.TrimRightFunc(line, unicode.IsSpace)
		if line == "" {
			if blank++; blank > maxBlankLines {
				continue
			}
		} else {
			blank = 0
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(line)
	}
	return b.String()
}

// StatusLength is the length of a post's text as the limit counts it
// (and as Mastodon counts it): its code points, but each link
// (Entities) counts as URLLength, however long its address.
func StatusLength(text string) int {
	n, at := 0, 0
	for _, e := range Entities(text) {
		if e.Kind == EntityURL {
			n += utf8.RuneCountInString(text[at:e.Start]) + URLLength
			at = e.End
		}
	}
	return n + utf8.RuneCountInString(text[at:])
}

func isForbiddenControl(r rune) bool { return r != '\t' && unicode.IsControl(r) }

// isPostControl reports whether r is a control character a post may
// not hold: any but tabs and line breaks.
func isPostControl(r rune) bool { return r != '\n' && isForbiddenControl(r) }

// isVisible reports whether r shows as something on the page: a letter,
// digit, punctuation or symbol, but for the blank ones (blanks). Spaces,
// format characters (zero-width spaces and joiners, direction marks) and
// lone combining marks do not.
func isVisible(r rune) bool {
	return unicode.In(r, unicode.L, unicode.N, unicode.P, unicode.S) && !unicode.Is(blanks, r)
}

// blanks are the letters and symbols that show as nothing: the Braille
// pattern without dots, the Hangul fillers, the Khmer inherent vowels,
// the Mongolian vowel separator and the like, and the format
// characters that are not spaces (zero-width space, joiners, word
// joiner, the byte order mark), which text made to look empty uses.
var blanks = &unicode.RangeTable{
	R16: []unicode.Range16{
		{Lo: 0x115f, Hi: 0x1160, Stride: 1},
		{Lo: 0x17b4, Hi: 0x17b5, Stride: 1},
		{Lo: 0x180e, Hi: 0x180e, Stride: 1},
		{Lo: 0x200b, Hi: 0x200d, Stride: 1},
		{Lo: 0x2060, Hi: 0x2060, Stride: 1},
		{Lo: 0x2800, Hi: 0x2800, Stride: 1},
		{Lo: 0x3164, Hi: 0x3164, Stride: 1},
		{Lo: 0xfeff, Hi: 0xfeff, Stride: 1},
		{Lo: 0xffa0, Hi: 0xffa0, Stride: 1},
	},
}

// IsBidiControl reports whether r is one of Unicode's bidirectional
// controls: the marks (U+200E, U+200F, U+061C), the embeddings and
// overrides (U+202A–U+202E) and the isolates (U+2066–U+2069). Inside a
// name they turn the text after them around ("\u202egnp.exe" shows as
// "exe.png"); names refuse them, and pages isolate every text a user
// wrote so that they turn nothing outside it.
func IsBidiControl(r rune) bool {
	switch {
	case r == 0x061c, r == 0x200e, r == 0x200f:
		return true
	case 0x202a <= r && r <= 0x202e, 0x2066 <= r && r <= 0x2069:
		return true
	}
	return false
}

// ValidName checks a name someone gives to what others see listed (an
// app, a token, themselves): valid UTF-8 of 1 to max code points,
// something visible, no control characters and no bidirectional
// controls (IsBidiControl). what names the field in the messages
// ("An app's name").
func ValidName(name string, max int, what string) error {
	switch {
	case !utf8.ValidString(name):
		return Errorf(Invalid, "%s must be valid UTF-8 text.", what)
	case name == "" || utf8.RuneCountInString(name) > max:
		return Errorf(Invalid, "%s has 1 to %d characters.", what, max)
	case !strings.ContainsFunc(name, isVisible):
		return Errorf(Invalid, "%s needs a letter, digit or symbol.", what)
	case strings.ContainsFunc(name, isForbiddenControl):
		return Errorf(Invalid, "%s may not contain control characters.", what)
	case strings.ContainsFunc(name, IsBidiControl):
		return Errorf(Invalid, "%s may not contain direction controls (such as U+202E), which show text reversed.", what)
	}
	return nil
}
