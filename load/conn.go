package load

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/url"
	"time"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis/internal/redisconn"
	"github.com/retwis/retwis/internal/resp"
)

// redisTarget is where a load connects and how it logs in.
type redisTarget struct {
	network  string   // "tcp" or "unix"
	addrs    []string // host:port of each seed node, or the socket's path
	tls      *tls.Config
	user     string
	password string
	db       int
	display  string // the URL without its password, for messages
}

// parseTarget reads a Redis URL the way `retwis serve` does (rueidis's
// parser): redis://[user:pass@]host:port[/db], rediss://… for TLS,
// unix://[user:pass@]/path.sock[?db=N]; a cluster's seed nodes may be
// several, redis://a:7000,b:7000.
func parseTarget(raw string) (redisTarget, error) {
	raw = redisconn.SeedsAsQuery(raw)
	u, err := url.Parse(raw)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // the whole error would repeat the URL, password and all
		}
		return redisTarget{}, fmt.Errorf("bad Redis URL: %w", err)
	}
	opt, err := rueidis.ParseURL(raw)
	if err != nil {
		return redisTarget{}, fmt.Errorf("bad Redis URL %s: %w", u.Redacted(), err)
	}
	t := redisTarget{
		network: "tcp", addrs: opt.InitAddress, tls: opt.TLSConfig,
		user: opt.Username, password: opt.Password, db: opt.SelectDB, display: u.Redacted(),
	}
	if u.Scheme == "unix" {
		t.network = "unix"
	}
	return t, nil
}

// dialSeed connects to the first seed node that answers, and returns the
// connection and the node's address.
func (t redisTarget) dialSeed(ctx context.Context, timeout time.Duration) (net.Conn, string, error) {
	var err error
	for _, addr := range t.addrs {
		var conn net.Conn
		if conn, err = t.dial(ctx, t.network, addr, timeout); err == nil {
			return conn, addr, nil
		}
	}
	return nil, "", err
}

// dial connects to addr and logs in, sending AUTH and SELECT when the URL
// asks for them. Their replies are read here, before any command of the
// input is sent, so they are not counted.
func (t redisTarget) dial(ctx context.Context, network, addr string, timeout time.Duration) (net.Conn, error) {
	d := net.Dialer{Timeout: timeout}
	conn, err := d.DialContext(ctx, network, addr)
	if err != nil {
		return nil, fmt.Errorf("connect to %s: %w", t.display, err)
	}
	if t.tls != nil {
		tc := tls.Client(conn, t.tls.Clone())
		if err := tc.HandshakeContext(ctx); err != nil {
			conn.Close()
			return nil, fmt.Errorf("connect to %s: TLS: %w", t.display, err)
		}
		conn = tc
	}
	if err := t.login(conn, timeout); err != nil {
		conn.Close()
		return nil, fmt.Errorf("connect to %s: %w", t.display, err)
	}
	return conn, nil
}

func (t redisTarget) login(conn net.Conn, timeout time.Duration) error {
	r := bufio.NewReader(conn)
	if t.password != "" {
		args := []string{"AUTH", t.password}
		if t.user != "" {
			args = []string{"AUTH", t.user, t.password}
		}
		if _, err := resp.RoundTrip(conn, r, timeout, args...); err != nil {
			return fmt.Errorf("AUTH: %w", err)
		}
	}
	if t.db != 0 {
		if _, err := resp.RoundTrip(conn, r, timeout, "SELECT", fmt.Sprint(t.db)); err != nil {
			return fmt.Errorf("SELECT %d: %w", t.db, err)
		}
	}
	return nil
}
