package retwis

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Bounds of the terms a user is found by.
const (
	MaxSearchTerms = 8  // the username and the first words of the display name
	maxTermLen     = 32 // code points a term keeps
)

// SearchTerms returns the folded words a user is found by, the first of
// each: the username, then each word (run of letters and digits) of the
// display name, folded as FoldTag folds tags (case and accents: "José"
// is found as "jose"), up to MaxSearchTerms.
func SearchTerms(username, displayName string) []string {
	terms := []string{FoldTag(username)}
	for _, w := range SearchWords(displayName) {
		if len(terms) == MaxSearchTerms {
			break
		}
		if !slices.Contains(terms, w) {
			terms = append(terms, w)
		}
	}
	return terms
}

// SearchWords returns the folded words of text as SearchTerms folds
// them: what a search for people looks for, each word the prefix of a
// term (a leading @ is dropped by the split).
func SearchWords(text string) []string {
	var words []string
	for _, w := range strings.FieldsFunc(FoldTag(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_' && !unicode.Is(unicode.Mn, r)
	}) {
		if utf8.RuneCountInString(w) > maxTermLen {
			w = string([]rune(w)[:maxTermLen])
		}
		words = append(words, w)
	}
	return words
}

// Matches reports whether every word is the prefix of one of terms.
func Matches(terms, words []string) bool {
	for _, w := range words {
		if !slices.ContainsFunc(terms, func(t string) bool { return strings.HasPrefix(t, w) }) {
			return false
		}
	}
	return true
}
