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
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/rueidis"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/password"
	"github.com/retwis/retwis/internal/snowflake"
)

// DefaultHomeCap is how many post ids a home timeline list keeps unless
// Options.HomeCap says otherwise.
const DefaultHomeCap = 800

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
	// HomeCap is how many post ids a home timeline list keeps
	// (DefaultHomeCap when zero); older posts are read from the authors'
	// own-post indexes.
	HomeCap int
	// CelebrityThreshold is the follower count above which an author's
	// posts are not fanned out on write but merged into followers' home
	// timelines when read (10,000 when zero).
	CelebrityThreshold int64
	// InactiveAfter is how long a user may stay away before fanout skips
	// them; their home timeline is rebuilt when they return (30 days when
	// zero).
	InactiveAfter time.Duration
	// IDs makes the ids of new users and posts. Servers give every store
	// a generator with a leased worker number, so that no id is ever
	// handed out twice, even when a Redis failover loses the last writes.
	// Nil: the tutorial's counters (next_user_id, next_post_id), for tools
	// and single-server use; a failover can roll those back, and writes
	// then refuse the reused ids rather than overwrite.
	IDs *snowflake.Generator
	// WaitReplicas is how many replicas must have a new account, post or
	// session before it is acknowledged (Redis's WAIT); zero does not
	// wait. WaitTimeout bounds each wait (one second when zero).
	WaitReplicas int
	WaitTimeout  time.Duration
	// Metrics, if not nil, receives the store's metrics: Redis call
	// latency and errors, client-side cache hits, delivery jobs, their
	// backlog and delay, and the password-hashing queue.
	Metrics prometheus.Registerer
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
		o.HomeCap = DefaultHomeCap
	}
	if o.CelebrityThreshold == 0 {
		o.CelebrityThreshold = 10_000
	}
	if o.WaitTimeout == 0 {
		o.WaitTimeout = time.Second
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
	// standalone is set once Redis is known to be a single server, not a
	// cluster, so that health checks need not ask again.
	standalone atomic.Bool
	metrics    *metrics // nil without Options.Metrics
	written    written  // cached keys this server changed a moment ago
}

// NewClient connects to the Redis server (or cluster) at redisURL:
// redis://[user:pass@]host:port[/db], rediss://… for TLS, or
// unix:///path/to/socket. For a cluster, several seed nodes may be
// given, redis://a:7000,b:7000,c:7000: the client starts as soon as any
// of them answers, and finds the other nodes by itself. Client-side
// caching is used when the server supports it (RESP3 and CLIENT
// TRACKING) and left off otherwise. A malformed URL, or a server that
// refuses the client (bad credentials), is an Invalid error.
//
// A node that stops answering (a frozen machine, a network split) fails
// the commands sent to it within about a second, rather than holding
// them until the request's deadline.
func NewClient(redisURL string) (rueidis.Client, error) {
	opt, err := rueidis.ParseURL(seedsAsQuery(redisURL))
	if err != nil {
		return nil, &retwis.Error{Kind: retwis.Invalid, Err: err,
			Message: fmt.Sprintf("bad Redis URL %q (want redis://host:port, rediss://… or unix:///path)", redactURL(redisURL))}
	}
	// Ask a cluster for its topology every few seconds, not only when a
	// reply says it changed, so that nodes that joined are found.
	opt.ClusterOption.ShardsRefreshInterval = topologyRefresh
	opt.ConnWriteTimeout = nodeTimeout
	opt.Dialer.Timeout = nodeTimeout
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

// topologyRefresh is how often a cluster client reads the topology.
const topologyRefresh = 5 * time.Second

// nodeTimeout is how long a Redis node may take to accept a connection
// or to answer a command before it is taken for gone.
const nodeTimeout = time.Second

// seedsAsQuery rewrites redis://a:1,b:2/0 into the form the client
// library reads, redis://a:1/0?addr=b:2.
func seedsAsQuery(raw string) string {
	scheme, rest, ok := strings.Cut(raw, "://")
	if !ok || scheme == "unix" {
		return raw
	}
	end := strings.IndexAny(rest, "/?")
	if end < 0 {
		end = len(rest)
	}
	authority, tail := rest[:end], rest[end:]
	at := strings.LastIndex(authority, "@")
	hosts := strings.Split(authority[at+1:], ",")
	if len(hosts) < 2 {
		return raw
	}
	sep := "?"
	if strings.Contains(tail, "?") {
		sep = "&"
	}
	for _, h := range hosts[1:] {
		tail += sep + "addr=" + url.QueryEscape(h)
		sep = "&"
	}
	return scheme + "://" + authority[:at+1] + hosts[0] + tail
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
	s := &Store{opts: opts, log: opts.Log, dummy: dummy, hashers: make(chan struct{}, runtime.GOMAXPROCS(0))}
	if opts.Metrics != nil {
		s.metrics = newMetrics(opts.Metrics, s)
	}
	s.c = deadlineClient{Client: client, block: max(opts.WaitTimeout, maxBlock), metrics: s.metrics}
	return s, nil
}

// Close closes the Redis client.
func (s *Store) Close() { s.c.Close() }

// wrap adds context to an error from Redis and classifies it:
//   - the caller's context was cancelled (the client went away): Canceled;
//   - Redis is full (maxmemory with noeviction): Unavailable, "storage
//     full", worth retrying later;
//   - Redis cannot serve right now (loading, failing over, busy) or
//     cannot be reached at all (refused or dropped connections,
//     timeouts): Unavailable;
//   - anything else is an error reply or data that does not parse, a bug
//     or damaged data, never an outage: Internal.
func (s *Store) wrap(op string, err error) error {
	if err == nil {
		return nil
	}
	wrapped := fmt.Errorf("store: %s: %w", op, err)
	switch {
	case retwis.ErrorKind(err) != retwis.Internal:
		return wrapped // classified already, by a nested call
	case errors.Is(err, context.Canceled):
		s.metrics.failed("canceled")
		return &retwis.Error{Kind: retwis.Canceled, Message: "The request was cancelled.", Err: wrapped}
	case isFull(err):
		s.metrics.failed("full")
		return &retwis.Error{Kind: retwis.Unavailable, Err: wrapped,
			Message: "The server's storage is full, so nothing can be saved right now. Please try again later."}
	case isTemporary(err) || !isReply(err):
		s.metrics.failed("unavailable")
		return &retwis.Error{Kind: retwis.Unavailable, Err: wrapped,
			Message: "The database is unavailable right now. Please try again in a moment."}
	}
	s.metrics.failed("internal")
	return wrapped
}

// isReply reports whether err came from a reply of the server (an error
// reply, a nil, a reply of an unexpected type, or a value that does not
// parse as what it should hold) rather than from failing to reach it.
func isReply(err error) bool {
	if _, ok := errors.AsType[*rueidis.RedisError](err); ok || rueidis.IsParseErr(err) {
		return true
	}
	_, ok := errors.AsType[*strconv.NumError](err)
	return ok
}

// isDamage reports whether err says that data is not what it should be
// (the wrong type, a value that does not parse), as opposed to Redis
// being unreachable, busy or full.
func isDamage(err error) bool {
	return err != nil && isReply(err) && !isTemporary(err) && !isFull(err) && !rueidis.IsRedisNil(err)
}

// isFull reports whether err is Redis refusing a write because it reached
// its memory limit.
func isFull(err error) bool {
	re, ok := errors.AsType[*rueidis.RedisError](err)
	return ok && strings.HasPrefix(re.Error(), "OOM ")
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

// writeTimeout bounds writes that go on after their request was
// cancelled (see detach).
const writeTimeout = 10 * time.Second

// detach returns a context for writes that must complete once begun,
// whether or not the client that asked for them is still there: it keeps
// ctx's values but not its cancellation, and has a deadline of its own.
func detach(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), writeTimeout)
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
