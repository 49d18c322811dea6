package retwis_test

import (
	"slices"
	"testing"

	"github.com/retwis/retwis"
)

func TestSearchTerms(t *testing.T) {
	for _, tc := range []struct {
		username, display string
		want              []string
	}{
		{"jose", "José Núñez", []string{"jose", "nunez"}},
		{"Ada_L", "Ada Lovelace", []string{"ada_l", "ada", "lovelace"}},
		{"kenji", "山田 健二", []string{"kenji", "山田", "健二"}},
		{"bob", "", []string{"bob"}},
		{"bob", "Bob BOB bob", []string{"bob"}},
		{"x", "a b c d e f g h i j", []string{"x", "a", "b", "c", "d", "e", "f", "g"}},
		{"ann", "Ann-Marie O'Neil", []string{"ann", "marie", "o", "neil"}},
	} {
		if got := retwis.SearchTerms(tc.username, tc.display); !slices.Equal(got, tc.want) {
			t.Errorf("SearchTerms(%q, %q) = %q; want %q", tc.username, tc.display, got, tc.want)
		}
	}
}

func TestMatches(t *testing.T) {
	terms := retwis.SearchTerms("jose", "José Núñez")
	for _, tc := range []struct {
		query string
		want  bool
	}{
		{"jos", true}, {"JOSÉ", true}, {"@jose", true}, {"nun", true}, {"jose nu", true},
		{"nu jo", true}, {"maria", false}, {"jose maria", false}, {"ose", false},
	} {
		if got := retwis.Matches(terms, retwis.SearchWords(tc.query)); got != tc.want {
			t.Errorf("Matches(%q, %q) = %v; want %v", terms, tc.query, got, tc.want)
		}
	}
}
