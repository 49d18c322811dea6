package filters

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/retwis/retwis"
)

// TestWordBoundaries: a whole word matches where Mastodon's \b would
// (at the ends of a keyword that begin or end with a word character),
// folded; a keyword not whole matches anywhere.
func TestWordBoundaries(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		keyword, text string
		whole, want   bool
	}{
		{"cat", "the Cat sat", true, true},
		{"cat", "concatenate", true, false},
		{"cat", "concatenate", false, true},
		{"cat", "cats", true, false},
		{"cat", "cat_", true, false},
		{"cat", "(cat)", true, true},
		{"#tag", "a#tag", true, true}, // no boundary asked before "#"
		{"#tag", "#tags", true, false},
		{"café", "CAFE au lait", true, true},
		{"naïve", "so naive", true, true},
		{"über", "Über alles", true, true},
		{"日本", "日本語", true, false},
		{"日本", "日本語", false, true},
		{"a b", "xa b", true, false},
		{"cat", "cat cat", true, true},
		{"cat", "cats cat", true, true},
	} {
		set := compile([]Filter{{Context: []string{Home}, Keywords: []Keyword{{Keyword: c.keyword, WholeWord: c.whole}}}})
		got := len(match(set.in(Home, time.Now()), retwis.Post{Body: c.text})) == 1
		if got != c.want {
			t.Errorf("%q (whole %v) in %q: %v; want %v", c.keyword, c.whole, c.text, got, c.want)
		}
	}
}

// FuzzWordIn: on any keyword and text, a whole word is found exactly
// where a regular expression of Mastodon's (\b around the keyword,
// quoted) finds it, for ASCII text, where \b is Ruby's too; and matching
// never panics on any input.
func FuzzWordIn(f *testing.F) {
	for _, s := range [][2]string{{"cat", "the cat"}, {"c.t", "cat c.t"}, {"é", "café"}, {"", "x"}, {"a", "\xff"}} {
		f.Add(s[0], s[1], true)
	}
	f.Fuzz(func(t *testing.T, keyword, text string, whole bool) {
		set := compile([]Filter{{Context: []string{Home}, Keywords: []Keyword{{Keyword: keyword, WholeWord: whole}}}})
		got := len(match(set.in(Home, time.Now()), retwis.Post{Body: text})) == 1
		if !ascii(keyword) || !ascii(text) || strings.TrimSpace(keyword) != keyword || keyword == "" || strings.ContainsAny(keyword+text, "\n\r") {
			return
		}
		pattern := "(?i)" + regexp.QuoteMeta(keyword)
		if whole && isWordRune(rune(keyword[0])) {
			pattern = `\b` + pattern
		}
		if whole && isWordRune(rune(keyword[len(keyword)-1])) {
			pattern += `\b`
		}
		if want := regexp.MustCompile(pattern).MatchString(text); got != want {
			t.Errorf("%q (whole %v) in %q: %v; the expression %s says %v", keyword, whole, text, got, pattern, want)
		}
	})
}

// ascii reports whether s is printable ASCII.
func ascii(s string) bool {
	for i := range len(s) {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

// BenchmarkApply times a page of 50 posts through three filters of 15
// keywords (a fifth of the posts warned of): what filters add to a warm
// page, besides the entities of the matches.
//
//	go test ./internal/store/filters -run '^$' -bench Apply
func BenchmarkApply(b *testing.B) {
	var fs []Filter
	for i, kws := range [][]string{{"dragon", "finale", "ending", "leak", "season 3"}, {"soup", "stew", "café", "recipe", "bake"}, {"election", "vote", "ballot", "senate", "poll"}} {
		f := Filter{ID: int64(i + 1), Title: fmt.Sprint("F", i), Context: []string{Home}, Action: []string{Hide, Warn, Warn}[i]}
		for j, k := range kws {
			f.Keywords = append(f.Keywords, Keyword{ID: int64(10*i + j), Keyword: k, WholeWord: j%2 == 0})
		}
		fs = append(fs, f)
	}
	set := compile(fs)
	var posts []retwis.Post
	for i := range 50 {
		topic := []string{"gardening", "soup", "dragons", "trains", "rain"}[i%5]
		posts = append(posts, retwis.Post{ID: int64(i + 1), AuthorID: 2, Body: fmt.Sprintf("post %d about %s, of a realistic length for a status update", i, topic)})
	}
	now := time.Now()
	for b.Loop() {
		if a := set.Apply(1, Home, posts, now); len(a.Matches) != 10 {
			b.Fatal(len(a.Matches))
		}
	}
}
