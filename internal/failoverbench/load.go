package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/retwis/retwis"
)

// load sends requests to the retwis servers at a fixed rate whatever
// becomes of them (an open loop: a request stuck on a frozen node holds
// no other back), as many independent users do, and records each one's
// outcome.
type load struct {
	servers []string // base URLs, taken in turn
	every   time.Duration
	client  *http.Client
	users   []user
	// maxInFlight bounds the requests awaiting their answer; a request
	// due while that many wait counts as failed (it could not be sent).
	maxInFlight int64
	inFlight    atomic.Int64

	mu      sync.Mutex
	results []result
}

// user is an account the load acts as, from an address of its own: the
// servers trust the load's X-Forwarded-For, so that its users are many
// clients, each with its own allowances (of the password hashers'
// queue, say), as real ones are.
type user struct {
	name, cookie, addr string
}

// clientAddr returns the nth client address, 10.0.0.0/8 in order.
func clientAddr(n int) string {
	return fmt.Sprintf("10.%d.%d.%d", n>>16&255, n>>8&255, n&255)
}

// result is the outcome of one request.
type result struct {
	at   time.Time // when it was due
	kind string    // home, post, follow or signup
	err  error     // nil if answered 2xx or 3xx
}

func newLoad(servers []string, every time.Duration) *load {
	return &load{
		servers: servers, every: every, maxInFlight: 2000,
		client: &http.Client{
			Timeout:       10 * time.Second,
			Transport:     &http.Transport{MaxIdleConnsPerHost: 512},
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		},
	}
}

// signUp creates n users, one at a time, each retried until it succeeds
// or ctx ends.
func (l *load) signUp(ctx context.Context, n int) error {
	for i := range n {
		for {
			u, err := l.register(ctx, l.servers[i%len(l.servers)], fmt.Sprintf("user%d", i), clientAddr(i))
			if err == nil {
				l.users = append(l.users, u)
				break
			}
			if ctx.Err() != nil {
				return fmt.Errorf("signing up the users: %w", err)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	return nil
}

// register signs name up on server from client address addr, and
// returns its session.
func (l *load) register(ctx context.Context, server, name, addr string) (user, error) {
	form := url.Values{"username": {name}, "password": {"password-" + name}, "password2": {"password-" + name}}
	resp, err := l.send(ctx, http.MethodPost, server+"/register", form, user{addr: addr})
	if err != nil {
		return user{}, err
	}
	for _, c := range resp.Cookies() {
		if c.Name == retwis.SessionCookie && c.Value != "" {
			return user{name, c.Value, addr}, nil
		}
	}
	return user{}, fmt.Errorf("sign-up of %s: no session cookie", name)
}

// send sends one request as u (its session, if any, and its address)
// and reads its answer; an answer other than 2xx or 3xx is an error.
func (l *load) send(ctx context.Context, method, target string, form url.Values, u user) (*http.Response, error) {
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequestWithContext(ctx, method, target, body)
	if err != nil {
		return nil, err
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	if u.cookie != "" {
		req.AddCookie(&http.Cookie{Name: retwis.SessionCookie, Value: u.cookie})
	}
	req.Header.Set("X-Forwarded-For", u.addr)
	resp, err := l.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		return nil, err
	}
	if resp.StatusCode >= 400 {
		return resp, fmt.Errorf("%s %s: %s", method, target, resp.Status)
	}
	return resp, nil
}

// run sends the nth request when n times l.every have passed, until ctx
// ends (late, it catches up at once), then waits for those in flight.
func (l *load) run(ctx context.Context) {
	var wg sync.WaitGroup
	defer wg.Wait()
	begin := time.Now()
	for n := 0; ; n++ {
		at := begin.Add(time.Duration(n) * l.every)
		select {
		case <-ctx.Done():
			return
		case <-time.After(time.Until(at)):
		}
		if l.inFlight.Load() >= l.maxInFlight {
			l.record(result{at, "dropped", errors.New("too many requests in flight")})
			continue
		}
		l.inFlight.Add(1)
		wg.Go(func() {
			defer l.inFlight.Add(-1)
			kind, err := l.request(n)
			l.record(result{at, kind, err})
		})
	}
}

// request sends the nth request: of every 20, 9 home pages, 8 posts, 2
// follows and a sign-up, each to the servers in turn, as one of the users.
func (l *load) request(n int) (string, error) {
	// Its own deadline: the run's end does not cut a request short.
	ctx := context.Background()
	server := l.servers[n%len(l.servers)]
	me := l.users[(n*7)%len(l.users)]
	switch k := n % 20; {
	case k < 9:
		_, err := l.send(ctx, http.MethodGet, server+"/", nil, me)
		return "home", err
	case k < 17:
		_, err := l.send(ctx, http.MethodPost, server+"/post", url.Values{"status": {fmt.Sprintf("post %d", n)}}, me)
		return "post", err
	case k < 19:
		other := l.users[(n*13)%len(l.users)]
		_, err := l.send(ctx, http.MethodPost, server+"/u/"+other.name+"/follow", url.Values{}, me)
		return "follow", err
	}
	_, err := l.register(ctx, server, fmt.Sprintf("new%d", n), clientAddr(len(l.users)+n))
	return "signup", err
}

func (l *load) record(r result) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.results = append(l.results, r)
}

// since returns the results of the requests due from start on.
func (l *load) since(start time.Time) []result {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []result
	for _, r := range l.results {
		if !r.at.Before(start) {
			out = append(out, r)
		}
	}
	return out
}
