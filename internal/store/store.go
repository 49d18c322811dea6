package store

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/password"
)

// Options configure a Store.
type Options struct {
	// Password is the argon2id cost of new password hashes.
	Password password.Params
	// CacheTTL bounds how long immutable data (post hashes, usernames) is
	// kept in the client-side cache; Redis invalidates it earlier if the
	// key changes. Zero means one hour.
	CacheTTL time.Duration
	// Log receives problems that do not fail the operation at hand
	// (slog.Default when nil).
	Log *slog.Logger
	// HomeCap is how many post ids a home timeline list keeps (800 when
	// zero); older posts are read from the authors' own-post indexes.
	HomeCap int
	// CelebrityThreshold is the follower count above which an author's
	// posts are not fanned out on write but merged into followers' home
	// timelines when read (10,000 when zero).
	CelebrityThreshold int64
	// InactiveAfter is how long a user may stay away before fanout skips
	// them; their home timeline is rebuilt when they return (30 days when
	// zero).
	InactiveAfter time.Duration
}

func (o *Options) setDefaults() {
	if o.Password == (password.Params{}) {
		o.Password = password.Default
	}
	if o.CacheTTL == 0 {
		o.CacheTTL = time.Hour
	}
	if o.Log == nil {
		o.Log = slog.Default()
	}
	if o.HomeCap == 0 {
		o.HomeCap = 800
	}
	if o.CelebrityThreshold == 0 {
		o.CelebrityThreshold = 10_000
	}
	if o.InactiveAfter == 0 {
		o.InactiveAfter = 30 * 24 * time.Hour
	}
}

// Store reads and writes retwis's data in Redis.
type Store struct {
	c       rueidis.Client
	opts    Options
	log     *slog.Logger
	dummy   string        // a password hash to verify against for unknown users
	hashers chan struct{} // slots bounding concurrent password hashing
}

// NewClient connects to the Redis server (or cluster) at redisURL:
// redis://[user:pass@]host:port[/db], rediss://… for TLS, or
// unix:///path/to/socket. A cluster is detected by itself. Client-side
// caching is used when the server supports it (RESP3 and CLIENT
// TRACKING) and left off otherwise. A malformed URL, or a server that
// refuses the client (bad credentials), is an Invalid error.
func NewClient(redisURL string) (rueidis.Client, error) {
	opt, err := rueidis.ParseURL(redisURL)
	if err != nil {
		return nil, &retwis.Error{Kind: retwis.Invalid, Err: err,
			Message: fmt.Sprintf("bad Redis URL %q (want redis://host:port, rediss://… or unix:///path)", redactURL(redisURL))}
	}
	opt.ConnWriteTimeout = 5 * time.Second
	opt.RetryDelay = retryDelay
	c, err := rueidis.NewClient(opt)
	if errors.Is(err, rueidis.ErrNoCache) {
		opt.DisableCache = true
		c, err = rueidis.NewClient(opt)
	}
	if err != nil && isReply(err) && !isTemporary(err) {
		// The server answered and refused (wrong password, no such
		// database): waiting will not change its mind.
		return nil, &retwis.Error{Kind: retwis.Invalid, Err: err,
			Message: fmt.Sprintf("Redis at %s refused the connection", redactURL(redisURL))}
	}
	if err != nil {
		return nil, fmt.Errorf("store: connect to %s: %w", redactURL(redisURL), err)
	}
	return c, nil
}

// retryDelay lets the client retry a read that failed on the network a
// few times, to ride out a dropped connection, but no more: the default
// retries until the request's deadline, which turns a Redis outage into
// pages that hang for seconds instead of a prompt 503.
func retryDelay(attempts int, _ rueidis.Completed, _ error) time.Duration {
	if attempts >= 3 {
		return -1
	}
	return time.Duration(20<<attempts) * time.Millisecond
}

// New returns a Store on client. The Store takes ownership of client and
// closes it in Close.
func New(client rueidis.Client, opts Options) (*Store, error) {
	opts.setDefaults()
	dummy, err := password.Hash("no such user", opts.Password)
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	return &Store{c: client, opts: opts, log: opts.Log, dummy: dummy,
		hashers: make(chan struct{}, runtime.GOMAXPROCS(0))}, nil
}

// Close closes the Redis client.
func (s *Store) Close() { s.c.Close() }

// Ping checks that Redis answers.
func (s *Store) Ping(ctx context.Context) error {
	return s.wrap("ping", s.c.Do(ctx, s.c.B().Ping().Build()).Error())
}

// wrap adds context to an error from Redis and classifies it: an error
// reply is a bug (Internal), unless it says the server is temporarily
// unable to serve; anything else — refused or dropped connections,
// timeouts — means Redis is unavailable.
func (s *Store) wrap(op string, err error) error {
	if err == nil {
		return nil
	}
	replied := isReply(err) && !isTemporary(err)
	err = fmt.Errorf("store: %s: %w", op, err)
	if replied {
		return err
	}
	return &retwis.Error{
		Kind:    retwis.Unavailable,
		Message: "The database is unavailable right now. Please try again in a moment.",
		Err:     err,
	}
}

// isReply reports whether err came from a reply of the server (an error
// reply, a nil, or a reply of an unexpected type) rather than from failing
// to reach it.
func isReply(err error) bool {
	_, ok := errors.AsType[*rueidis.RedisError](err)
	return ok || rueidis.IsParseErr(err)
}

// isTemporary reports whether err is an error reply saying the server
// cannot serve right now but will: loading its data after a restart, busy
// with a script, failing over, or a cluster that is reconfiguring.
func isTemporary(err error) bool {
	re, ok := errors.AsType[*rueidis.RedisError](err)
	if !ok {
		return false
	}
	if re.IsLoading() || re.IsClusterDown() || re.IsTryAgain() {
		return true
	}
	for _, prefix := range []string{"BUSY ", "MASTERDOWN ", "READONLY "} {
		if strings.HasPrefix(re.Error(), prefix) {
			return true
		}
	}
	return false
}

// firstErr returns the first error among the results of a pipeline.
func firstErr(results []rueidis.RedisResult) error {
	for _, r := range results {
		if err := r.Error(); err != nil && !rueidis.IsRedisNil(err) {
			return err
		}
	}
	return nil
}

// newSecret returns a random, unguessable auth secret: 20 bytes from the
// operating system's CSPRNG, hex-encoded like the original Retwis's.
func newSecret() string {
	b := make([]byte, 20)
	rand.Read(b) // never fails (crypto/rand panics instead)
	return hex.EncodeToString(b)
}

func id(n int64) string { return strconv.FormatInt(n, 10) }

// redactURL hides the password of a Redis URL, for error messages and logs.
func redactURL(s string) string {
	if u, err := url.Parse(s); err == nil {
		return u.Redacted()
	}
	return "the Redis URL"
}
