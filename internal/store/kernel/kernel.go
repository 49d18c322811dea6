package kernel

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/rueidis"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/password"
	"github.com/retwis/retwis/internal/redisconn"
	"github.com/retwis/retwis/internal/snowflake"
)

// DefaultHomeCap is how many post ids a home timeline list keeps unless
// Options.HomeCap says otherwise.
const DefaultHomeCap = 800

// DefaultHomeHistory is `retwis serve`'s default --home-history
// (Options.HomeHistory): about 10,000 post ids a home timeline, days to
// weeks of reading, some 70 KB of Redis a user at most.
const DefaultHomeHistory = 10_000

// DefaultArchiveChunk is how many entries of a home timeline move to its
// archive at a time unless Options.ArchiveChunk says otherwise.
const DefaultArchiveChunk = 200

// Options configure the store.
type Options struct {
	// Password is the argon2id cost of new password hashes.
	Password password.Params
	// CacheTTL bounds how long immutable data (post hashes, usernames) is
	// kept in the client-side cache; Redis invalidates it earlier if the
	// key changes. Zero means one hour.
	CacheTTL time.Duration
	// Invalidations, if set, hears what Redis invalidates in the client's
	// cache (the client was dialed with it: redisconn.Options), so that
	// Memos may keep values (see Memo); nil: they keep none.
	Invalidations *Invalidations
	// Log receives problems that do not fail the operation at hand
	// (slog.Default when nil).
	Log *slog.Logger
	// HomeCap is how many post ids a home timeline list keeps at least
	// (DefaultHomeCap when zero). Once it holds ArchiveChunk more, the
	// oldest ArchiveChunk move to the timeline's archive, as one chunk
	// (DefaultArchiveChunk when zero): deep pages read the archive.
	HomeCap      int
	ArchiveChunk int
	// HomeHistory is about how many post ids a home timeline keeps, its
	// list and archive together: maintenance drops the archive's oldest
	// chunks past it (DB.TrimHistory). Zero keeps them all.
	HomeHistory int
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
	// WaitReplicas is how many replicas at least must have a new
	// account, post or session before it is acknowledged (Redis's WAIT):
	// a write waits for every replica in sync that its master has, and
	// for this many at least (see DB.Replicated); zero does not wait.
	// WaitTimeout bounds each wait (one second when zero).
	WaitReplicas int
	WaitTimeout  time.Duration
	// CommandTimeout bounds how long a Redis command or pipeline may take
	// (redisconn.DefaultCommandTimeout when zero): what a frozen node
	// costs a request.
	CommandTimeout time.Duration
	// CircuitOpen is how long the calls bound for a master that timed
	// out fail at once before one tries it again
	// (redisconn.DefaultCircuitOpen when zero; negative: never, every
	// call waits for its CommandTimeout).
	CircuitOpen time.Duration
	// ReplicaReads says that the client sends some reads to replicas
	// (ReadFromReplica): post hashes and usernames a replica does not hold
	// yet are then read again from the master.
	ReplicaReads bool
	// Metrics, if not nil, receives the store's metrics: Redis call
	// latency and errors, client-side cache hits, delivery jobs, their
	// backlog and delay, and the password-hashing queue.
	Metrics prometheus.Registerer
	// Limits are the rate limits of what each user does (zero: none).
	Limits Limits
	// SessionIdle is how long a session (a login of the pages) lasts
	// without use (DefaultSessionIdle when zero); SessionMax how long it
	// lasts at most, however much it is used (DefaultSessionMax when
	// zero). The secret an account had before sessions per device lasts
	// as long, counted from the first time it is used since.
	SessionIdle time.Duration
	SessionMax  time.Duration
	// NameReserve is how long the username of a deleted account stays
	// reserved, so that nobody can pose as its owner
	// (DefaultNameReserve when zero).
	NameReserve time.Duration
	// MaxPostChars is the longest post, as retwis.StatusLength counts
	// it (retwis.DefaultMaxStatusLen when zero): every interface posts
	// through the store, which refuses a longer one.
	MaxPostChars int
}

// The defaults of Options.SessionIdle and Options.SessionMax.
const (
	DefaultSessionIdle = 30 * 24 * time.Hour
	DefaultSessionMax  = 365 * 24 * time.Hour
)

// DefaultNameReserve is how long the username of a deleted account
// stays reserved unless Options.NameReserve says otherwise.
const DefaultNameReserve = 30 * 24 * time.Hour

// Limits are the rate limits the store applies per account, whatever
// the interface: an action beyond one is refused with an error of kind
// TooMany and writes nothing.
type Limits struct {
	Posts   retwis.Rate // posts, replies and edits
	Follows retwis.Rate // follows (unfollowing is not limited)
	Actions retwis.Rate // favourites, bookmarks and pins (taking them back is not limited)
	Reports retwis.Rate // reports to the moderators
	// MaxFollowing is the most accounts one account may follow (zero:
	// no bound).
	MaxFollowing int64
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
	if o.ArchiveChunk == 0 {
		o.ArchiveChunk = DefaultArchiveChunk
	}
	if o.CelebrityThreshold == 0 {
		o.CelebrityThreshold = 10_000
	}
	if o.WaitTimeout == 0 {
		o.WaitTimeout = time.Second
	}
	if o.CommandTimeout == 0 {
		o.CommandTimeout = redisconn.DefaultCommandTimeout
	}
	if o.InactiveAfter == 0 {
		o.InactiveAfter = 30 * 24 * time.Hour
	}
	if o.SessionIdle == 0 {
		o.SessionIdle = DefaultSessionIdle
	}
	if o.SessionMax == 0 {
		o.SessionMax = DefaultSessionMax
	}
	if o.NameReserve == 0 {
		o.NameReserve = DefaultNameReserve
	}
	if o.MaxPostChars == 0 {
		o.MaxPostChars = retwis.DefaultMaxStatusLen
	}
}

// DB is the store's handle on Redis, shared by every package of the
// store: the client with its per-call deadline, the classification of
// errors, pipelines that reload scripts, WAIT, the client-side cache and
// the read-your-writes window, id minting, the password hasher and the
// metrics.
type DB struct {
	// C is the Redis client, every call bounded by Options.CommandTimeout.
	C rueidis.Client
	// Opts are the options the DB was made with, their defaults filled in.
	Opts Options
	// Log receives problems that do not fail the operation at hand.
	Log *slog.Logger
	// Hasher runs at most one password hash per core at once, clients in
	// turn.
	Hasher *password.Hasher
	// Nodes are the masters, for health checks and scans.
	Nodes *redisconn.Nodes
	// Breakers fail at once the calls bound for a master that timed out
	// a moment ago (unless Options.CircuitOpen is negative); every
	// client of the DB (Through) shares them. Their map of which master
	// serves each slot also tells Replicated whose replicas to wait for.
	Breakers *redisconn.Breakers
	// Metrics is nil without Options.Metrics.
	Metrics *Metrics
	// Written holds the cached keys this server changed a moment ago.
	Written *Written
	// Outages holds the shards of the delivery queue that failed a
	// moment ago.
	Outages *ShardOutages
	// replicas are how many replicas in sync each master has, for
	// Replicated.
	replicas *replicaCounts
	// invalidations tells the Memos of the DB what its client's cache
	// lost; nil when the client does not report it (see Memo).
	invalidations *Invalidations
	// Now is the clock of sessions' expiries.
	Now func() time.Time
}

// New returns a DB on client. The DB takes ownership of client and
// closes it in Close.
func New(client rueidis.Client, opts Options) (*DB, error) {
	opts.setDefaults()
	hasher, err := password.NewHasher(opts.Password, runtime.GOMAXPROCS(0))
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	db := &DB{Opts: opts, Log: opts.Log, Hasher: hasher, Nodes: redisconn.NewNodes(client),
		Written: &Written{inv: opts.Invalidations}, Outages: &ShardOutages{}, Now: time.Now, invalidations: opts.Invalidations}
	db.Breakers = redisconn.NewBreakers(db.Nodes, opts.CircuitOpen)
	db.replicas = &replicaCounts{nodes: db.Nodes}
	if opts.Metrics != nil {
		db.Metrics = newMetrics(opts.Metrics, db)
	}
	db.C = db.bounded(client)
	return db, nil
}

// bounded returns client with the DB's per-call deadline, observed by
// its metrics.
func (db *DB) bounded(client rueidis.Client) rueidis.Client {
	var observe redisconn.Observer
	if db.Metrics != nil {
		observe = db.Metrics.Call
	}
	return redisconn.Bounded(client, db.Opts.CommandTimeout, max(db.Opts.WaitTimeout, MaxBlock), observe, db.circuits())
}

// circuits are the breakers that gate calls: none when
// Options.CircuitOpen is negative.
func (db *DB) circuits() *redisconn.Breakers {
	if db.Opts.CircuitOpen < 0 {
		return nil
	}
	return db.Breakers
}

// Through returns a DB that is db but for the client it sends its
// Redis calls through: client, which it takes ownership of and closes in
// Close. A server that serves pages and delivers posts gives its
// delivery worker a client of its own, so that page reads never queue
// behind delivery's pipelines of a thousand calls; everything else (the
// metrics, the id generator, what this server wrote a moment ago) is
// shared.
func (db *DB) Through(client rueidis.Client) *DB {
	t := *db
	t.C = db.bounded(client)
	t.invalidations = nil // client's invalidations reach no Memo: its Memos keep nothing
	return &t
}

// Close closes the Redis client.
func (db *DB) Close() { db.C.Close() }

// MaxBlock is the longest a read of the delivery queue waits for jobs.
const MaxBlock = 2 * time.Second

// Wrap adds context to an error from Redis and classifies it:
//   - the caller's context was cancelled (the client went away): Canceled;
//   - Redis is full (maxmemory with noeviction): Unavailable, "storage
//     full", worth retrying later;
//   - Redis refuses for now (a master without the replicas its
//     min-replicas-to-write asks for, a replica or a master that lost
//     its own, loading, busy with a script, a cluster failing over) or
//     cannot be reached at all (refused or dropped connections,
//     timeouts, a node whose circuit is open): Unavailable;
//   - anything else is an error reply or data that does not parse, a bug
//     or damaged data, never an outage: Internal.
//
// The metrics count each failure by its class (see [Metrics.Failed]).
func (db *DB) Wrap(op string, err error) error {
	if err == nil {
		return nil
	}
	wrapped := fmt.Errorf("store: %s: %w", op, err)
	switch {
	case retwis.ErrorKind(err) != retwis.Internal:
		return wrapped // classified already, by a nested call
	case errors.Is(err, context.Canceled):
		db.Metrics.Failed("canceled")
		return &retwis.Error{Kind: retwis.Canceled, Message: "The request was cancelled.", Err: wrapped}
	case redisconn.IsFull(err):
		db.Metrics.Failed("full")
		return &retwis.Error{Kind: retwis.Unavailable, Err: wrapped,
			Message: "The server's storage is full, so nothing can be saved right now. Please try again later."}
	case redisconn.IsTemporary(err):
		db.Metrics.Failed(redisconn.Refusal(err))
		return unavailable(wrapped)
	case !redisconn.IsReply(err):
		db.Metrics.Failed("unavailable")
		return unavailable(wrapped)
	}
	db.Metrics.Failed("internal")
	return wrapped
}

// unavailable is an Unavailable error for a database that cannot serve
// right now.
func unavailable(err error) error {
	return &retwis.Error{Kind: retwis.Unavailable, Err: err,
		Message: "The database is unavailable right now. Please try again in a moment."}
}

// WriteTimeout bounds writes that go on after their request was
// cancelled (see Detach).
const WriteTimeout = 10 * time.Second

// Detach returns a context for writes that must complete once begun,
// whether or not the client that asked for them is still there: it keeps
// ctx's values but not its cancellation, and has a deadline of its own.
func Detach(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), WriteTimeout)
}

// ID writes a user or post id as a string.
func ID(n int64) string { return strconv.FormatInt(n, 10) }

// IDs writes user or post ids as strings.
func IDs(ns []int64) []string {
	out := make([]string, len(ns))
	for i, n := range ns {
		out[i] = ID(n)
	}
	return out
}

// ParseIDs parses user or post ids, skipping what is not one.
func ParseIDs(strs []string) []int64 {
	out := make([]int64, 0, len(strs))
	for _, v := range strs {
		if n, err := strconv.ParseInt(v, 10, 64); err == nil {
			out = append(out, n)
		}
	}
	return out
}
