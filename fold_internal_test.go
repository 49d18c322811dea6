package retwis

import (
	"testing"

	"golang.org/x/text/cases"
	"golang.org/x/text/runes"
	"golang.org/x/text/transform"
	"golang.org/x/text/unicode/norm"
)

// slowFold is FoldTag without its ASCII shortcut.
func slowFold(s string) string {
	t := transform.Chain(norm.NFD, runes.Remove(runes.Predicate(isAccent)), cases.Fold(), norm.NFC)
	folded, _, _ := transform.String(t, s)
	return folded
}

// FuzzFoldASCII checks that FoldTag's shortcut for ASCII folds as the
// full Unicode chain does.
func FuzzFoldASCII(f *testing.F) {
	all := make([]byte, 128)
	for i := range all {
		all[i] = byte(i)
	}
	for _, s := range []string{string(all), "Redis", "ADA_L", "user17", "ǅ", "K"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		fast, ok := foldASCII(s)
		if ok && fast != slowFold(s) {
			t.Fatalf("foldASCII(%q) = %q; the chain gives %q", s, fast, slowFold(s))
		}
		if got := FoldTag(s); got != slowFold(s) {
			t.Fatalf("FoldTag(%q) = %q; want %q", s, got, slowFold(s))
		}
	})
}
