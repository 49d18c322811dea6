package redlock

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/rueidis"
)

// Errors of acquisition and extension. Use errors.Is.
var (
	// ErrNotAcquired: the lock is held by someone else.
	ErrNotAcquired = errors.New("redlock: lock held by someone else")
	// ErrQuorum: too many instances are unreachable for a majority.
	ErrQuorum = errors.New("redlock: quorum unreachable: too many instances are down")
	// ErrLost: the lock is no longer held: its validity has ended, or so
	// many instances no longer hold it that it can never again be held on
	// a majority. Stop the work it guards: another holder may start it.
	ErrLost = errors.New("redlock: lock lost")
	// ErrExtendFailed: an extension did not reach a majority in time
	// (instances slow, or down), but the lock is still valid until its
	// Until: try again before then.
	ErrExtendFailed = errors.New("redlock: extension failed; the lock is valid until it expires")
	// ErrTooManyExtensions: the lock was extended MaxExtensions times.
	ErrTooManyExtensions = errors.New("redlock: too many extensions")
)

// Options tune a Client. The zero value gives the specification's defaults.
type Options struct {
	// InstanceTimeout bounds each instance's answer: small next to the
	// TTL, so a dead instance costs little. Zero: TTL/20, within 10–100 ms.
	InstanceTimeout time.Duration
	// DriftFactor and DriftMin make the clock-drift allowance
	// TTL × DriftFactor + DriftMin (0.01 and 2 ms when zero).
	DriftFactor float64
	DriftMin    time.Duration
	// Retries is how many times Lock tries again after failing (3 when
	// zero; negative: until the context ends).
	Retries int
	// RetryDelay is the longest random delay between tries (200 ms when
	// zero); each delay is drawn uniformly from [RetryDelay/2, RetryDelay].
	RetryDelay time.Duration
	// MaxExtensions limits the successful Extend calls per acquisition (10
	// when zero; negative: no limit), as the specification asks for
	// liveness. Failed attempts do not count.
	MaxExtensions int
	// NoFencing skips fencing: locks carry no token (Lock.Token returns
	// 0), and acquiring sends each instance its SET NX alone, without the
	// INCR of the fence counter, and never takes a second round to raise
	// lagging counters. For work whose resources do not check tokens.
	NoFencing bool
}

func (o *Options) setDefaults() {
	if o.DriftFactor == 0 {
		o.DriftFactor = 0.01
	}
	if o.DriftMin == 0 {
		o.DriftMin = 2 * time.Millisecond
	}
	if o.Retries == 0 {
		o.Retries = 3
	}
	if o.RetryDelay == 0 {
		o.RetryDelay = 200 * time.Millisecond
	}
	if o.MaxExtensions == 0 {
		o.MaxExtensions = 10
	}
}

// Client acquires locks on a fixed set of independent Redis masters.
type Client struct {
	instances []*instance
	opts      Options
}

// New returns a Client for the masters at urls (redis://, rediss:// or
// unix://). Instances are connected lazily, so a client can start while
// some are down.
func New(urls []string, opts Options) (*Client, error) {
	if len(urls) == 0 {
		return nil, errors.New("redlock: no instances")
	}
	c := &Client{opts: opts}
	c.opts.setDefaults()
	for _, u := range urls {
		o, err := rueidis.ParseURL(strings.TrimSpace(u))
		if err != nil {
			return nil, fmt.Errorf("redlock: instance %q: %w", u, err)
		}
		o.DisableCache = true
		o.DisableRetry = true // a retry would outlast the instance timeout
		c.instances = append(c.instances, &instance{opt: o})
	}
	return c, nil
}

// ParseServers splits a comma-separated list of instance URLs, as a flag
// or an environment variable gives it, for New: spaces around the URLs
// are trimmed and empty entries dropped, so that a trailing comma does no
// harm. It fails when no URL is left.
func ParseServers(list string) ([]string, error) {
	var urls []string
	for u := range strings.SplitSeq(list, ",") {
		if u = strings.TrimSpace(u); u != "" {
			urls = append(urls, u)
		}
	}
	if len(urls) == 0 {
		return nil, fmt.Errorf("redlock: no URL in the server list %q", list)
	}
	return urls, nil
}

// NewFromClients returns a Client on existing connections, one per
// master; Close does not close them.
func NewFromClients(clients []rueidis.Client, opts Options) (*Client, error) {
	if len(clients) == 0 {
		return nil, errors.New("redlock: no instances")
	}
	c := &Client{opts: opts}
	c.opts.setDefaults()
	for _, cl := range clients {
		in := &instance{client: cl, borrowed: true}
		in.ready.Store(&connected{cl})
		c.instances = append(c.instances, in)
	}
	return c, nil
}

// WithOptions returns a Client on the same instances and connections
// with opts instead of c's (zero fields take their defaults, as in New),
// for locks of another kind: the two share their connections, so close
// only one of them.
func (c *Client) WithOptions(opts Options) *Client {
	d := *c
	d.opts = opts
	d.opts.setDefaults()
	return &d
}

// Close closes the connections the Client opened.
func (c *Client) Close() {
	for _, in := range c.instances {
		in.close()
	}
}

// quorum is the majority of the instances.
func (c *Client) quorum() int { return len(c.instances)/2 + 1 }

func (c *Client) instanceTimeout(ttl time.Duration) time.Duration {
	if c.opts.InstanceTimeout > 0 {
		return c.opts.InstanceTimeout
	}
	return min(100*time.Millisecond, max(10*time.Millisecond, ttl/20))
}

func (c *Client) drift(ttl time.Duration) time.Duration {
	return time.Duration(float64(ttl)*c.opts.DriftFactor) + c.opts.DriftMin
}

// instance is one master, connected on first use, or one key's slot of
// a cluster.
type instance struct {
	opt      rueidis.ClientOption
	ready    atomic.Pointer[connected] // the client once connected: read without the lock
	mu       sync.Mutex                // guards connecting and closing
	client   rueidis.Client
	borrowed bool
	// prefix is prepended to a lock's name to make its key here: "" on
	// an independent master; a hash tag "{<tag>}" naming this instance's
	// slot on a cluster (NewOnCluster).
	prefix string
}

// keys returns, for each instance, the lock key of name there and its
// fence key, which share a hash slot. Instances with the same prefix (all
// the independent masters) share one slice: it is only read.
func (c *Client) keys(name string) ([][]string, error) {
	if err := checkName(name); err != nil { // also on a cluster, whose prefixes are tags
		return nil, err
	}
	out := make([][]string, len(c.instances))
	for i, in := range c.instances {
		if i > 0 && in.prefix == c.instances[i-1].prefix {
			out[i] = out[i-1]
			continue
		}
		key := in.prefix + name
		fence, err := fenceKey(key)
		if err != nil {
			return nil, err
		}
		out[i] = []string{key, fence}
	}
	return out, nil
}

// connected holds an instance's client.
type connected struct{ rueidis.Client }

// get returns the instance's client, connecting if needed within ctx.
func (in *instance) get(ctx context.Context) (rueidis.Client, error) {
	if c := in.ready.Load(); c != nil {
		return c.Client, nil
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.client != nil {
		return in.client, nil
	}
	o := in.opt
	if d, ok := ctx.Deadline(); ok {
		o.Dialer.Timeout = time.Until(d)
	}
	cl, err := rueidis.NewClient(o)
	if err != nil {
		return nil, err
	}
	in.client = cl
	in.ready.Store(&connected{cl})
	return cl, nil
}

func (in *instance) close() {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.client != nil && !in.borrowed {
		in.ready.Store(nil)
		in.client.Close()
		in.client = nil
	}
}

// newValue returns the random value of an acquisition: 20 bytes from
// crypto/rand, hex-encoded so that it reads well in redis-cli.
func newValue() string {
	b := make([]byte, 20)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// fenceKey returns the key of the fencing counter of a lock, in the same
// hash slot as the lock's key, so that one script can touch both even
// when an instance is a cluster. A name with a {hash tag} keeps it; a
// name without one is hashed whole, and wrapping it in braces hashes the
// same bytes, unless it contains '}', which such a name may not.
func fenceKey(name string) (string, error) {
	if err := checkName(name); err != nil {
		return "", err
	}
	if hasTag(name) {
		return name + ":fence", nil
	}
	return "{" + name + "}:fence", nil
}

// checkName fails for a name whose fence key could not share its slot,
// and for the empty name.
func checkName(name string) error {
	switch {
	case hasTag(name):
		return nil
	case strings.ContainsRune(name, '}'):
		return fmt.Errorf("redlock: lock name %q: a '}' is allowed only in a {hash tag}", name)
	case name == "":
		return errors.New("redlock: empty lock name")
	}
	return nil
}

// hasTag reports whether name has a {hash tag}: a '{' followed, later,
// by a '}' with something between them.
func hasTag(name string) bool {
	if i := strings.IndexByte(name, '{'); i >= 0 {
		return strings.IndexByte(name[i+1:], '}') > 0
	}
	return false
}
