package loadtest

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"
)

// connection is one simulated user: one goroutine sending requests one
// after another over one keep-alive TCP connection.
type connection struct {
	id     int
	opts   *Options
	client *http.Client
	cookie *http.Cookie // nil without Options.Cookies
	rng    *rand.Rand

	latency          *histogram
	requests, errors int64
	samples          []string // distinct error descriptions, at most maxErrorSamples
}

// seed is mixed with the connection number so that connection 0 does not
// get the all-zero PCG seed; any constant would do.
const seed = 0x9e3779b97f4a7c15

func newConnection(id int, opts *Options) *connection {
	// A transport of its own, limited to one connection, makes each
	// simulated user exactly one TCP connection, as a browser tab would be
	// (HTTP/1.1: Go only speaks HTTP/2 when asked to). Proxy stays nil: the
	// server is what is being measured, not a proxy from the environment.
	tr := &http.Transport{
		DialContext:         (&net.Dialer{Timeout: opts.Timeout, KeepAlive: 30 * time.Second}).DialContext,
		TLSHandshakeTimeout: opts.Timeout,
		MaxConnsPerHost:     1,
		MaxIdleConnsPerHost: 1,
		IdleConnTimeout:     90 * time.Second,
	}
	c := &connection{
		id:   id,
		opts: opts,
		client: &http.Client{
			Transport: tr,
			// Report redirects rather than follow them: the redirect is
			// the response retwis gives, and following it would time two
			// requests as one.
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		},
		rng:     rand.New(rand.NewPCG(uint64(id), seed)),
		latency: newHistogram(),
	}
	if n := len(opts.Cookies); n > 0 {
		c.cookie = &http.Cookie{Name: opts.CookieName, Value: opts.Cookies[id%n]}
	}
	return c
}

// run sends requests until sending is done. Requests run under ctx, so
// that those in flight at the end of the run may finish, but are aborted
// when the caller cancels ctx.
func (c *connection) run(ctx, sending context.Context) {
	defer c.client.CloseIdleConnections()
	for sending.Err() == nil {
		r := c.opts.Next(c.id, c.rng)
		start := time.Now()
		failure := c.do(ctx, r)
		if failure != "" && ctx.Err() != nil {
			return // aborted by the caller: not a measurement of the server
		}
		c.latency.record(time.Since(start))
		c.requests++
		if failure != "" {
			c.fail(failure)
		}
	}
}

// do sends r and reads the whole response, returning a description of
// what went wrong, or "" on success.
func (c *connection) do(ctx context.Context, r Request) string {
	method := cmp.Or(r.Method, http.MethodGet)
	// The query string is left out so that failures of one endpoint read
	// alike in the samples.
	what := method + " " + strings.SplitN(r.Path, "?", 2)[0]
	ctx, cancel := context.WithTimeout(ctx, c.opts.Timeout)
	defer cancel()
	req, err := c.newRequest(ctx, method, r)
	if err != nil {
		return fmt.Sprintf("%s: %v", what, err)
	}
	resp, err := c.client.Do(req)
	if err == nil {
		// Reading to the end lets the connection be reused, and is part
		// of the latency a user sees.
		_, err = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	switch {
	case err != nil && errors.Is(ctx.Err(), context.DeadlineExceeded):
		return fmt.Sprintf("%s: timeout after %v", what, c.opts.Timeout)
	case err != nil:
		// url.Error repeats the method and the whole URL; what says that.
		if ue, ok := errors.AsType[*url.Error](err); ok {
			err = ue.Err
		}
		return fmt.Sprintf("%s: %v", what, err)
	case resp.StatusCode >= 400:
		return fmt.Sprintf("%s: status %d", what, resp.StatusCode)
	}
	return ""
}

// newRequest builds the HTTP request for r.
func (c *connection) newRequest(ctx context.Context, method string, r Request) (*http.Request, error) {
	path := r.Path
	if !strings.HasPrefix(path, "/") {
		path = "/" + path
	}
	var body io.Reader
	if r.Form != nil || method == http.MethodPost {
		body = strings.NewReader(r.Form.Encode())
	}
	req, err := http.NewRequestWithContext(ctx, method, c.opts.BaseURL+path, body)
	if err != nil {
		return nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	if c.cookie != nil {
		req.AddCookie(c.cookie)
	}
	if r.Bearer != "" {
		req.Header.Set("Authorization", "Bearer "+r.Bearer)
	}
	return req, nil
}

// fail counts an error and keeps its description if it is a new one.
func (c *connection) fail(desc string) {
	c.errors++
	if len(c.samples) < maxErrorSamples && !slices.Contains(c.samples, desc) {
		c.samples = append(c.samples, desc)
	}
}
