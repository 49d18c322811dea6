package retwis

import (
	"strings"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Limits of what a user writes about themselves.
const (
	MaxDisplayNameLen = 50  // Unicode code points, after normalisation
	MaxBioLen         = 160 // likewise
)

// NormalizeDisplayName turns a display name as typed into the one
// stored: NFC, runs of spaces and line breaks made one space, trimmed; at
// most 50 code points, something visible, no control characters and no
// bidirectional controls (IsBidiControl). An empty name (or only
// spaces) is allowed: it removes the display name, and pages show the
// username alone.
func NormalizeDisplayName(name string) (string, error) {
	name, err := normalizeText(name, MaxDisplayNameLen, "Display names")
	if err == nil && strings.ContainsFunc(name, IsBidiControl) {
		return "", Errorf(Invalid, "Display names may not contain direction controls (such as U+202E), which show text reversed.")
	}
	return name, err
}

// NormalizeBio turns a bio as typed into the one stored, by the rules of
// display names, at most 160 code points; empty removes it.
func NormalizeBio(bio string) (string, error) {
	return normalizeText(bio, MaxBioLen, "Bios")
}

// normalizeText applies the rules of NormalizeDisplayName with a limit
// of max code points; what names the field in messages.
func normalizeText(s string, max int, what string) (string, error) {
	if len(s) > 4*max+64 { // before any work: nothing longer can pass
		return "", Errorf(Invalid, "%s are at most %d characters long.", what, max)
	}
	if !utf8.ValidString(s) {
		return "", Errorf(Invalid, "%s must be valid UTF-8 text.", what)
	}
	s = strings.Join(strings.Fields(norm.NFC.String(s)), " ")
	switch n := utf8.RuneCountInString(s); {
	case n == 0:
		return "", nil
	case n > max:
		return "", Errorf(Invalid, "%s are at most %d characters long (this one has %d).", what, max, n)
	case !strings.ContainsFunc(s, isVisible):
		return "", Errorf(Invalid, "%s need a letter, digit or symbol.", what)
	case strings.ContainsFunc(s, isForbiddenControl):
		return "", Errorf(Invalid, "%s may not contain control characters.", what)
	}
	return s, nil
}
