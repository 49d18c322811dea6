package retwis

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Rate is how often something may be done: Count times per Per, in
// bursts of up to Count. The zero Rate is no limit.
type Rate struct {
	Count int
	Per   time.Duration
}

// Off reports whether r sets no limit.
func (r Rate) Off() bool { return r.Count <= 0 || r.Per <= 0 }

// String writes r as ParseRate reads it: "300/5m0s", or "off".
func (r Rate) String() string {
	if r.Off() {
		return "off"
	}
	return strconv.Itoa(r.Count) + "/" + r.Per.String()
}

// Interval is the time one action takes up of the rate: Per / Count.
func (r Rate) Interval() time.Duration { return r.Per / time.Duration(r.Count) }

// ParseRate reads a rate written "COUNT/DURATION" ("300/5m", "10/1h";
// Go's durations) or "off". The count is 1 to 1,000,000, the duration
// up to a year, and the interval between actions (DURATION/COUNT) at
// least a millisecond.
func ParseRate(s string) (Rate, error) {
	if s == "off" {
		return Rate{}, nil
	}
	count, per, ok := strings.Cut(s, "/")
	n, err1 := strconv.Atoi(count)
	d, err2 := time.ParseDuration(per)
	if !ok || err1 != nil || err2 != nil || n < 1 || n > 1_000_000 || d > 366*24*time.Hour || d/time.Duration(n) < time.Millisecond {
		return Rate{}, fmt.Errorf("%q is not a rate: write COUNT/DURATION, such as 300/5m, or off", s)
	}
	return Rate{Count: n, Per: d}, nil
}

// Quota is what a rate limit leaves after an action: Limit actions per
// Per, Remaining of them now, all available again at Reset; RetryAfter
// is how long to wait before the next one passes (zero while some
// remain).
type Quota struct {
	Limit      int
	Remaining  int
	Reset      time.Time
	RetryAfter time.Duration
}

// Limited is the cause of an error of kind TooMany: the quota of the
// limit that refused the action.
type Limited struct {
	Quota Quota
}

// Error implements error.
func (l *Limited) Error() string { return fmt.Sprintf("rate limited for %v", l.Quota.RetryAfter) }

// TooManyError returns the error of an action a rate limit refused:
// kind TooMany, saying when to try again.
func TooManyError(q Quota) error {
	secs := int(math.Ceil(q.RetryAfter.Seconds()))
	wait := "in a moment"
	switch {
	case secs > 90*60:
		wait = fmt.Sprintf("in about %d hours", (secs+1800)/3600)
	case secs > 90:
		wait = fmt.Sprintf("in about %d minutes", (secs+30)/60)
	case secs > 1:
		wait = fmt.Sprintf("in %d seconds", secs)
	}
	return &Error{Kind: TooMany, Message: "Too many requests: please try again " + wait + ".", Err: &Limited{Quota: q}}
}
