package streaming

import (
	"fmt"
	"net/http"
	"strconv"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
)

// Limits bound the connections (an SSE stream, a WebSocket, however many
// streams it carries) open at once on one server. Zeros mean the
// defaults (DefaultLimits); a negative bound is none.
type Limits struct {
	// PerToken bounds the connections of one API token, or one session
	// of the pages.
	PerToken int
	// PerAccount bounds those of one account, whatever its tokens and
	// sessions.
	PerAccount int
	// PerAddr bounds those of one client address, with a token or
	// without.
	PerAddr int
}

// DefaultLimits are the bounds of zero Limits: room for an app's few
// streams on each of a user's devices, and for the tabs of a few
// browsers behind one address.
var DefaultLimits = Limits{PerToken: 16, PerAccount: 32, PerAddr: 64}

// withDefaults fills in the zero bounds.
func (l Limits) withDefaults() Limits {
	if l.PerToken == 0 {
		l.PerToken = DefaultLimits.PerToken
	}
	if l.PerAccount == 0 {
		l.PerAccount = DefaultLimits.PerAccount
	}
	if l.PerAddr == 0 {
		l.PerAddr = DefaultLimits.PerAddr
	}
	return l
}

// connections counts the open connections by what Limits bound.
type connections struct {
	limits Limits

	mu    sync.Mutex
	open  map[string]int // by counted: "token:<id>", "session:<id>", "user:<id>", "addr:<address>"
	total int
}

// newConnections returns the counts of a server with limits.
func newConnections(limits Limits) *connections {
	return &connections{limits: limits.withDefaults(), open: map[string]int{}}
}

// bound is one count a connection adds to, and its limit.
type bound struct {
	key   string
	limit int
	what  string // what the limit is of, for the refusal
}

// bounds returns what a connection of l from addr counts against.
func (c *connections) bounds(l listener, addr string) []bound {
	bs := []bound{{"addr:" + addr, c.limits.PerAddr, "from one address"}}
	if l.access.User != 0 {
		bs = append(bs, bound{"user:" + strconv.FormatInt(l.access.User, 10), c.limits.PerAccount, "for one account"})
	}
	if l.access.Token != "" {
		bs = append(bs, bound{"token:" + l.access.Token, c.limits.PerToken, "with one access token"})
	}
	if l.access.Session != "" {
		bs = append(bs, bound{"session:" + l.access.Session, c.limits.PerToken, "in one session"})
	}
	return bs
}

// admit counts a new connection of l from addr, and returns the function
// that ends its count; or, if it would go past a limit, refuses it with
// 429 and counts nothing.
func (c *connections) admit(l listener, addr string) (release func(), refused *streamError) {
	bs := c.bounds(l, addr)
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, b := range bs {
		if b.limit >= 0 && c.open[b.key] >= b.limit {
			return nil, &streamError{http.StatusTooManyRequests,
				fmt.Sprintf("Too many live streams open %s (at most %d): close one first.", b.what, b.limit)}
		}
	}
	for _, b := range bs {
		c.open[b.key]++
	}
	c.total++
	return func() { c.release(bs) }, nil
}

// release ends the count of a connection admitted with bs.
func (c *connections) release(bs []bound) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, b := range bs {
		if c.open[b.key]--; c.open[b.key] <= 0 {
			delete(c.open, b.key)
		}
	}
	c.total--
}

// count returns how many connections are open.
func (c *connections) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.total
}

// registerMetrics registers in reg the gauges of s: the connections open
// and the channels the server's streams subscribe on Redis.
func (s *Server) registerMetrics(reg prometheus.Registerer) {
	gauges := []prometheus.Collector{
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "retwis_streams_open",
			Help: "Live stream connections (SSE streams and WebSockets) open on this server."},
			func() float64 { return float64(s.conns.count()) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "retwis_stream_subscriptions",
			Help: "Redis pub/sub channels this server subscribes for its live streams (one per stream, however many clients follow it)."},
			func() float64 { return float64(s.hub.Streams()) }),
	}
	for _, g := range gauges {
		if err := reg.Register(g); err != nil {
			s.log.Warn("stream metrics not registered", "err", err)
		}
	}
}
