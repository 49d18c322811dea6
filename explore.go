package retwis

import (
	"strconv"
	"strings"
	"time"
)

// Range is an inclusive range of counts, Min to Max; Max is -1 for no
// upper bound.
type Range struct{ Min, Max int64 }

// Any is the range of every count.
var Any = Range{0, -1}

// maxRangeText bounds what ParseRange reads.
const maxRangeText = 40

// ParseRange reads a range as people write it: "100-10000", "5-" (5 or
// more), "-50" (up to 50), "7" (exactly 7), or "" (any). Thousands may
// be grouped with commas or underscores ("10,000"), and an en dash may
// stand for the hyphen.
func ParseRange(s string) (Range, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return Any, nil
	}
	bad := Errorf(Invalid, "%q is not a range: write MIN-MAX, MIN-, -MAX or a number, e.g. 100-10000.", clip(s))
	if len(s) > maxRangeText {
		return Range{}, bad
	}
	s = strings.ReplaceAll(s, "–", "-")
	lo, hi, isRange := strings.Cut(s, "-")
	if !isRange {
		hi = lo
	}
	from, okFrom := count(lo, 0)
	to, okTo := count(hi, -1)
	if !okFrom || !okTo {
		return Range{}, bad
	}
	r := Range{from, to}
	if r.Max >= 0 && r.Min > r.Max {
		return Range{}, Errorf(Invalid, "In %q the first number is larger than the second.", clip(s))
	}
	return r, nil
}

// count reads a count of a range, or empty if the text is blank.
func count(s string, empty int64) (int64, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return empty, true
	}
	s = strings.NewReplacer(",", "", "_", "").Replace(s)
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil && n >= 0 && s[0] != '+'
}

// clip shortens s for an error message.
func clip(s string) string {
	if len(s) > maxRangeText {
		return s[:maxRangeText] + "…"
	}
	return s
}

// Contains reports whether n is in r.
func (r Range) Contains(n int64) bool { return n >= r.Min && (r.Max < 0 || n <= r.Max) }

// String writes r as ParseRange reads it.
func (r Range) String() string {
	switch {
	case r == Any:
		return ""
	case r.Max < 0:
		return strconv.FormatInt(r.Min, 10) + "-"
	case r.Min == r.Max:
		return strconv.FormatInt(r.Min, 10)
	}
	return strconv.FormatInt(r.Min, 10) + "-" + strconv.FormatInt(r.Max, 10)
}

// Directory is a query of the directory of accounts (the explore page):
// the accounts whose follower count and number of posts in the last
// seven days fall in the ranges, and who joined within the dates.
type Directory struct {
	Followers, Posts Range
	// JoinedFrom and JoinedTo bound the day of sign-up, both days
	// included; zero for no bound.
	JoinedFrom, JoinedTo time.Time
}

// DirectoryWeek is the span of the directory's count of recent posts.
const DirectoryWeek = 7 * 24 * time.Hour

// ParseDay reads a day as an HTML date input sends it, YYYY-MM-DD (in
// UTC), or "" (no bound: the zero time). What names the input, for the
// error.
func ParseDay(s, what string) (time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.DateOnly, s)
	if err != nil || t.Year() < 1970 || t.Year() > 9999 {
		return time.Time{}, Errorf(Invalid, "%s: %q is not a date; write YYYY-MM-DD.", what, clip(s))
	}
	return t, nil
}

// Validate checks that the dates are in order.
func (d Directory) Validate() error {
	if !d.JoinedFrom.IsZero() && !d.JoinedTo.IsZero() && d.JoinedTo.Before(d.JoinedFrom) {
		return Errorf(Invalid, "The sign-up dates are the wrong way round.")
	}
	return nil
}

// Account is a person as the directory lists them.
type Account struct {
	Person
	// PostsThisWeek counts the posts of the last seven days.
	PostsThisWeek int64
	// Joined is the day the account was made (zero if unknown).
	Joined time.Time
}

// Listing is what a Directory query found: the accounts shown, most
// followed first, and how many matched. Exact is false when the
// matches were too many to count, and Matched then says how many at
// least.
type Listing struct {
	Accounts []Account
	Matched  int64
	Exact    bool
}
