package filters

import (
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/retwis/retwis"
)

// Set is a user's filters compiled for matching: each keyword folded
// once. It is shared by the requests that read it: never changed.
type Set struct {
	filters []compiled
}

// compiled is a filter with its keywords folded and its posts by id.
type compiled struct {
	Filter
	words []word
	posts map[int64]int64 // post id → the StatusRef's id
}

// word is a keyword folded as retwis.FoldTag folds, and whether a match
// must begin and end at a word boundary (whole_word, where the keyword
// begins or ends with a word character, as Mastodon's \b).
type word struct {
	keyword     string
	folded      string
	start, stop bool
}

// Match is a filter that matched a post: the keywords found in its text
// or warning, and the StatusRef's ids that name it.
type Match struct {
	Filter   Filter
	Keywords []string
	Statuses []int64
}

// compile returns the Set of filters.
func compile(filters []Filter) *Set {
	set := &Set{filters: make([]compiled, 0, len(filters))}
	for _, f := range filters {
		c := compiled{Filter: f, posts: map[int64]int64{}}
		for _, k := range f.Keywords {
			w := word{keyword: k.Keyword, folded: retwis.FoldTag(k.Keyword)}
			if k.WholeWord {
				first, _ := utf8.DecodeRuneInString(w.folded)
				last, _ := utf8.DecodeLastRuneInString(w.folded)
				w.start, w.stop = isWordRune(first), isWordRune(last)
			}
			if w.folded != "" {
				c.words = append(c.words, w)
			}
		}
		for _, r := range f.Statuses {
			c.posts[r.PostID] = r.ID
		}
		set.filters = append(set.filters, c)
	}
	return set
}

// Empty reports whether the set has no filter at all.
func (set *Set) Empty() bool { return set == nil || len(set.filters) == 0 }

// live returns the filters of set that have not expired at now.
func (set *Set) live(now time.Time) []Filter {
	out := []Filter{}
	for _, c := range set.filters {
		if !c.Expired(now) {
			out = append(out, c.Filter)
		}
	}
	return out
}

// in returns the filters of set that apply in context at now.
func (set *Set) in(context string, now time.Time) []*compiled {
	var out []*compiled
	for i := range set.filters {
		if c := &set.filters[i]; c.AppliesIn(context) && !c.Expired(now) {
			out = append(out, c)
		}
	}
	return out
}

// match returns the filters of active that match p (for a boost, the
// post it boosts): its keywords are looked for in the post's text and
// content warning, folded.
func match(active []*compiled, p retwis.Post) []Match {
	if p.Reblog != nil {
		p = *p.Reblog
	}
	var text string
	var out []Match
	for _, c := range active {
		var keywords []string
		var statuses []int64
		if id, ok := c.posts[p.ID]; ok {
			statuses = []int64{id}
		}
		for _, w := range c.words {
			if text == "" {
				text = foldText(p)
			}
			if w.in(text) {
				keywords = append(keywords, w.keyword)
			}
		}
		if len(keywords) > 0 || len(statuses) > 0 {
			out = append(out, Match{Filter: c.Filter, Keywords: keywords, Statuses: statuses})
		}
	}
	return out
}

// foldText is p's content warning and text, folded as keywords are.
func foldText(p retwis.Post) string {
	if p.Warning == "" {
		return retwis.FoldTag(p.Body)
	}
	return retwis.FoldTag(p.Warning + "\n" + p.Body)
}

// in reports whether w is found in text (folded), at word boundaries
// where w asks for them.
func (w word) in(text string) bool {
	for from := 0; from < len(text); {
		at := strings.Index(text[from:], w.folded)
		if at < 0 {
			return false
		}
		at += from
		end := at + len(w.folded)
		before, _ := utf8.DecodeLastRuneInString(text[:at])
		after, _ := utf8.DecodeRuneInString(text[end:])
		if (!w.start || at == 0 || !isWordRune(before)) && (!w.stop || end == len(text) || !isWordRune(after)) {
			return true
		}
		_, size := utf8.DecodeRuneInString(text[at:])
		from = at + size
	}
	return false
}

// isWordRune reports whether r is a word character, as Ruby's [[:word:]]
// (and retwis.SearchWords) take one: a letter, a mark, a digit or "_".
func isWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r) || r == '_'
}
