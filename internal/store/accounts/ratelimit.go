package accounts

import (
	"cmp"
	"context"
	"strconv"
	"time"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/store/kernel"
	"github.com/retwis/retwis/internal/store/schema"
)

// Subject is what a rate limit counts the actions of, and whose.
type Subject string

// LoginFrom is the subject of the login attempts from a client address.
func LoginFrom(addr string) Subject { return Subject(schema.LoginAddrLimit(addr)) }

// LoginTo is the subject of the login attempts to the account named
// username (whether it exists or not: the name is enough).
func LoginTo(username string) Subject {
	return Subject(schema.LoginAccountLimit(retwis.FoldUsername(username)))
}

// SignupFrom is the subject of the sign-ups from a client address.
func SignupFrom(addr string) Subject { return Subject(schema.SignupAddrLimit(addr)) }

// APIToken is the subject of the API calls made with the token t.
func APIToken(t retwis.Token) Subject {
	return Subject(schema.APITokenLimit(t.ID[:min(len(t.ID), 32)]))
}

// APIFrom is the subject of the API calls without a token from a client
// address.
func APIFrom(addr string) Subject { return Subject(schema.APIAddrLimit(addr)) }

// Take counts one action of subject against rate and returns what is
// left of it. An action beyond the rate is refused with an error of
// kind TooMany (see retwis.TooManyError), and costs nothing more: the
// caller then does nothing. One script call on the subject's own key,
// timed by Redis's clock, so that the limit holds across every server
// of the database. A rate that is off passes everything without a
// round trip.
func (s *Store) Take(ctx context.Context, subject Subject, rate retwis.Rate) (retwis.Quota, error) {
	if rate.Off() {
		return retwis.Quota{}, nil
	}
	interval := max(rate.Interval().Milliseconds(), 1)
	period := interval * int64(rate.Count)
	vals, err := kernel.RateTake.Exec(ctx, s.C, []string{schema.RateLimit(string(subject))},
		strconv.FormatInt(interval, 10), strconv.FormatInt(period, 10)).AsIntSlice()
	if err != nil || len(vals) != 3 {
		return retwis.Quota{}, s.Wrap("rate limit", cmp.Or(err, kernel.ErrScriptReply))
	}
	passed, retry, ahead := vals[0] == 1, time.Duration(vals[1])*time.Millisecond, vals[2]
	q := retwis.Quota{Limit: rate.Count, Remaining: int(max(period-ahead, 0) / interval),
		Reset: time.Now().Add(time.Duration(ahead) * time.Millisecond), RetryAfter: retry}
	if !passed {
		q.Remaining = 0
		return q, retwis.TooManyError(q)
	}
	return q, nil
}
