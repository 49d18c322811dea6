package redisconn

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis"
)

// TopologyRefresh is how often a cluster client reads the topology.
const TopologyRefresh = 5 * time.Second

// NodeTimeout is how long a Redis node may take to accept a connection
// or to answer a command before it is taken for gone.
const NodeTimeout = time.Second

// Options configure a client beyond what its URL says.
type Options struct {
	// ReadFromReplica, if set, picks the read commands that a cluster
	// client sends to a replica of the key's master rather than to the
	// master (to a master that has no replica, still). Replicas lag
	// behind their master: pick reads of data that never changes once
	// written, and read from the master what a replica does not hold
	// yet. A single server ignores it.
	ReadFromReplica func(cmd rueidis.Completed) bool
	// NodeTimeout, if set, is how long a node may take to accept a
	// connection or to answer before it is taken for gone, instead of
	// NodeTimeout: tests on a loaded machine, where a sound node may
	// stall for longer than a second, give it longer.
	NodeTimeout time.Duration
	// Invalidations, if set, hears of every key Redis invalidates in the
	// client-side cache (nil keys: all of them, as when a connection is
	// lost), or, when the server keeps no cache for the client, that none
	// will come (Untracked).
	Invalidations Invalidations
}

// Invalidations is told what Redis invalidates in a client's cache
// (kernel.Invalidations).
type Invalidations interface {
	Invalidated(keys []string)
	Untracked()
}

// Dial connects to the Redis server (or cluster) at redisURL:
// redis://[user:pass@]host:port[/db], rediss://… for TLS, or
// unix:///path/to/socket. For a cluster, several seed nodes may be
// given, redis://a:7000,b:7000,c:7000: the client starts as soon as any
// of them answers, and finds the other nodes by itself. Client-side
// caching is used when the server supports it (RESP3 and CLIENT
// TRACKING) and left off otherwise. A malformed URL, or a server that
// refuses the client (bad credentials), is an Invalid error.
//
// A node that stops answering (a frozen machine, a network split) fails
// the commands sent to it within about NodeTimeout, rather than holding
// them until the request's deadline. On a cluster, while commands fail
// on the network (time out, find no connection), the client watches
// which master serves each slot, and once a failover moves slots it
// sends every command through a new connection to the cluster, which
// knows (see reroute.go): a master that a replica replaced gets no more
// commands, neither while frozen or dead nor once resumed as a replica.
func Dial(redisURL string) (rueidis.Client, error) { return DialWith(redisURL, Options{}) }

// DialWith is Dial with options.
func DialWith(redisURL string, o Options) (rueidis.Client, error) {
	opt, err := rueidis.ParseURL(SeedsAsQuery(redisURL))
	if err != nil {
		return nil, &retwis.Error{Kind: retwis.Invalid, Err: err,
			Message: fmt.Sprintf("bad Redis URL %q (want redis://host:port, rediss://… or unix:///path)", redact(redisURL))}
	}
	// Ask a cluster for its topology every few seconds, not only when a
	// reply says it changed, so that nodes that joined are found.
	opt.ClusterOption.ShardsRefreshInterval = TopologyRefresh
	opt.ConnWriteTimeout = cmp.Or(o.NodeTimeout, NodeTimeout)
	opt.Dialer.Timeout = opt.ConnWriteTimeout
	opt.RetryDelay = retryDelay
	// One pipelined connection to each node, as a cluster client has by
	// default (a single server's default is one per two cores): a page's
	// cached reads are then one pipeline, answered from the cache in the
	// caller's goroutine, rather than split by connection and run in a
	// goroutine each (docs/PERFORMANCE.md, "The data path").
	opt.PipelineMultiplex = -1
	if o.ReadFromReplica != nil {
		masters, err := mastersOf(redisURL)
		if err != nil {
			return nil, err
		}
		if masters != nil { // a cluster
			opt.InitAddress = masters
			opt.SendToReplicas = o.ReadFromReplica
		}
	}
	if inv := o.Invalidations; inv != nil {
		opt.OnInvalidations = func(msgs []rueidis.RedisMessage) {
			if msgs == nil {
				inv.Invalidated(nil)
				return
			}
			keys := make([]string, 0, len(msgs))
			for _, m := range msgs {
				if k, err := m.ToString(); err == nil {
					keys = append(keys, k)
				}
			}
			inv.Invalidated(keys)
		}
	}
	c, err := rueidis.NewClient(opt)
	if errors.Is(err, rueidis.ErrNoCache) {
		opt.DisableCache, opt.OnInvalidations = true, nil
		if o.Invalidations != nil {
			o.Invalidations.Untracked()
		}
		c, err = rueidis.NewClient(opt)
	}
	if err != nil && IsReply(err) && !IsTemporary(err) {
		// The server answered and refused (wrong password, no such
		// database): waiting will not change its mind.
		return nil, &retwis.Error{Kind: retwis.Invalid, Err: err,
			Message: fmt.Sprintf("Redis at %s refused the connection", redact(redisURL))}
	}
	if err != nil {
		return nil, fmt.Errorf("redisconn: connect to %s: %w", redact(redisURL), err)
	}
	if c.Mode() == rueidis.ClientModeCluster {
		return newRerouting(c, opt), nil
	}
	return c, nil
}

// mastersOf returns the addresses of the masters of the cluster at
// redisURL, or nil for a single server. A client that reads from replicas
// must be seeded with masters only: the client library keeps the first
// connection it made to each seed, and one made to a replica before the
// library knew it for one is not in read-only mode, so the replica
// redirects every read to its master.
func mastersOf(redisURL string) ([]string, error) {
	c, err := Dial(redisURL)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	nodes := NewNodes(c)
	masters := nodes.Masters(ctx)
	if nodes.standalone.Load() {
		return nil, nil
	}
	return slices.Sorted(maps.Keys(masters)), nil
}

// SeedsAsQuery rewrites a URL with several seed nodes,
// redis://a:1,b:2/0, into the form the client library reads,
// redis://a:1/0?addr=b:2. Other URLs are returned as they are.
func SeedsAsQuery(raw string) string {
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

// redact hides the password of a Redis URL, for error messages and logs.
func redact(s string) string {
	if u, err := url.Parse(s); err == nil {
		return u.Redacted()
	}
	return "the Redis URL"
}
