package bench

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/dataset"
	"github.com/retwis/retwis/internal/loadtest"
)

// scenario is one kind of traffic: what a connection sends next. A
// scenario with run measures something else than a row of the table, and
// prints its own report.
type scenario struct {
	name string
	next func(b *bench, conn int, rng *rand.Rand) loadtest.Request
	run  func(b *bench, ctx context.Context) error
}

var scenarioList = []scenario{
	{name: "home", next: func(*bench, int, *rand.Rand) loadtest.Request { return loadtest.Request{Path: "/"} }},
	{name: "profile", next: func(b *bench, conn int, rng *rand.Rand) loadtest.Request {
		return loadtest.Request{Path: retwis.ProfilePath("user" + strconv.Itoa(b.popularUser(conn, rng)))}
	}},
	{name: "timeline", next: func(*bench, int, *rand.Rand) loadtest.Request { return loadtest.Request{Path: "/timeline"} }},
	{name: "api-home", next: func(b *bench, conn int, _ *rand.Rand) loadtest.Request {
		return loadtest.Request{Path: "/api/v1/timelines/home", Bearer: b.tokens[conn]}
	}},
	{name: "notifications", next: func(*bench, int, *rand.Rand) loadtest.Request { return loadtest.Request{Path: "/notifications"} }},
	{name: "api-notifications", next: func(b *bench, conn int, _ *rand.Rand) loadtest.Request {
		return loadtest.Request{Path: "/api/v1/notifications", Bearer: b.tokens[conn]}
	}},
	{name: "tag", next: func(b *bench, _ int, rng *rand.Rand) loadtest.Request {
		return loadtest.Request{Path: retwis.TagPath(b.words[rng.IntN(len(b.words))])}
	}},
	{name: "thread", next: func(b *bench, conn int, rng *rand.Rand) loadtest.Request {
		return loadtest.Request{Path: retwis.PostPath(int64(b.popularPost(conn, rng)))}
	}},
	{name: "post", next: func(_ *bench, conn int, rng *rand.Rand) loadtest.Request { return postRequest(conn, rng) }},
	{name: "post-rich", next: func(b *bench, conn int, rng *rand.Rand) loadtest.Request { return b.richPostRequest(conn, rng) }},
	{name: "mixed", next: func(b *bench, conn int, rng *rand.Rand) loadtest.Request {
		switch x := rng.IntN(100); {
		case x < 70:
			return loadtest.Request{Path: "/"}
		case x < 85:
			return loadtest.Request{Path: retwis.ProfilePath("user" + strconv.Itoa(b.popularUser(conn, rng)))}
		case x < 95:
			return loadtest.Request{Path: "/timeline"}
		}
		return postRequest(conn, rng)
	}},
	{name: "sustained", run: (*bench).sustained},
	{name: "streaming", run: (*bench).streaming},
}

func postRequest(conn int, rng *rand.Rand) loadtest.Request {
	return loadtest.Request{Method: "POST", Path: "/post", Form: url.Values{
		"status": {fmt.Sprintf("benchmark post %d from connection %d, of a realistic length for a status update", rng.IntN(1e9), conn)},
	}}
}

// richPostRequest is a post as conversations make them: it mentions
// five seeded users and has five tags, so that the cost of indexing them
// shows next to the plain post's.
func (b *bench) richPostRequest(conn int, rng *rand.Rand) loadtest.Request {
	r := postRequest(conn, rng)
	status := r.Form.Get("status")
	for range 5 {
		status += " @user" + strconv.Itoa(1+rng.IntN(b.users()))
	}
	for range 5 {
		status += " #" + b.words[rng.IntN(len(b.words))]
	}
	r.Form.Set("status", status)
	return r
}

// users is how many seeded users there are to visit and log in as.
func (b *bench) users() int { return max(b.opts.Users, 1) }

// popularUser returns the number of a seeded user whose profile
// connection conn visits next: by a Zipf law over the users (s = 1.1),
// as visits to profiles are on real sites, user1 most often.
func (b *bench) popularUser(conn int, rng *rand.Rand) int {
	return 1 + zipf(b.userZipfs, conn, rng, b.users())
}

// popularPost returns the id of a seeded post whose page connection conn
// visits next: by a Zipf law over the posts, the newest most often, never
// a followers-only one (dataset.VisibilityOf).
func (b *bench) popularPost(conn int, rng *rand.Rand) int {
	posts := max(b.opts.Posts, 1)
	pid := posts - zipf(b.postZipfs, conn, rng, posts)
	if dataset.VisibilityOf(pid) == retwis.Private && pid > 1 { // its page is 404 to those who do not follow its author
		pid--
	}
	return pid
}

// zipf draws a number below n by a Zipf law (s = 1.1), 0 most often,
// from the generator of connection conn in zs (each connection has its
// own, used from its goroutine only).
func zipf(zs []*rand.Zipf, conn int, rng *rand.Rand, n int) int {
	if zs[conn] == nil {
		zs[conn] = rand.NewZipf(rng, 1.1, 1, uint64(max(n-1, 1)))
	}
	return int(zs[conn].Uint64())
}

// warmUp is how long a scenario runs before it is measured, so that what
// is measured is a server in its steady state (its caches filled).
func (b *bench) warmUp() time.Duration { return min(2*time.Second, b.opts.Duration/4) }

// baselinePath is the static route every scenario is compared with: a
// file of the server's own, which needs no Redis, so that the ratio says
// what a page costs on top of serving anything at all.
const baselinePath = "/static/style.css"

// scenarios runs the static baseline, /healthz (one Redis round trip),
// and then each scenario, each for the configured duration after a
// warm-up, and prints one table: ratios to the baseline measured in the
// same run survive a noisy machine.
func (b *bench) scenarios(ctx context.Context) error {
	if err := b.login(ctx); err != nil {
		return err
	}
	baseline, err := b.load(ctx, func(int, *rand.Rand) loadtest.Request { return loadtest.Request{Path: baselinePath} }, b.opts.Duration)
	if err != nil {
		return err
	}
	healthz, err := b.load(ctx, func(int, *rand.Rand) loadtest.Request { return loadtest.Request{Path: "/healthz"} }, b.opts.Duration)
	if err != nil {
		return err
	}
	b.printf("\n%d connections, %s per scenario, against %s; ratios to the static file %s\n",
		b.opts.Connections, b.opts.Duration, b.opts.URL, baselinePath)
	b.printf("%-17s %10s %7s %9s %9s %9s %9s %7s\n", "scenario", "req/s", "ratio", "p50", "p90", "p99", "max", "errors")
	b.row("static", baseline, baseline)
	b.row("healthz", healthz, baseline)
	for _, sc := range scenarioList {
		if !slices.Contains(b.opts.Scenarios, sc.name) || sc.run != nil {
			continue
		}
		// A posting scenario leaves deliveries queued: the next one
		// starts when they are done, not while they compete with it.
		if err := b.waitIdle(ctx); err != nil {
			return err
		}
		next := func(conn int, rng *rand.Rand) loadtest.Request { return sc.next(b, conn, rng) }
		if _, err := b.load(ctx, next, b.warmUp()); err != nil {
			return err
		}
		r, err := b.load(ctx, next, b.opts.Duration)
		if err != nil {
			return err
		}
		b.row(sc.name, r, baseline)
	}
	for _, sc := range scenarioList {
		if slices.Contains(b.opts.Scenarios, sc.name) && sc.run != nil {
			if err := sc.run(b, ctx); err != nil {
				return err
			}
		}
	}
	return nil
}

func (b *bench) row(name string, r, baseline loadtest.Result) {
	ms := func(d time.Duration) string { return fmt.Sprintf("%.2fms", float64(d.Microseconds())/1000) }
	b.printf("%-17s %10.0f %7.2f %9s %9s %9s %9s %7d\n", name, r.RPS, r.RPS/baseline.RPS,
		ms(r.P50), ms(r.P90), ms(r.P99), ms(r.Max), r.Errors)
	for _, e := range r.ErrorSamples {
		b.printf("           error: %s\n", e)
	}
}

// load runs one load of next for d from every connection.
func (b *bench) load(ctx context.Context, next func(int, *rand.Rand) loadtest.Request, d time.Duration) (loadtest.Result, error) {
	return loadtest.Run(ctx, loadtest.Options{
		BaseURL: b.opts.URL, Connections: b.opts.Connections, Duration: d, Cookies: b.cookies, CookieName: retwis.SessionCookie, Next: next,
	})
}

// login logs one seeded user in per connection (user1, user2, …) and
// checks that the cookie works, so that no scenario measures the welcome
// page by mistake; for the API's scenarios, each makes a personal token
// on the settings page, as a person would.
func (b *bench) login(ctx context.Context) error {
	b.cookies, b.tokens = b.cookies[:0], b.tokens[:0]
	api := slices.ContainsFunc(b.opts.Scenarios, func(s string) bool { return strings.HasPrefix(s, "api-") })
	for i := range b.opts.Connections {
		name := "user" + strconv.Itoa(1+i%b.users())
		cookie, err := loginAs(ctx, b.opts.URL, name, b.opts.Password)
		if err != nil {
			return fmt.Errorf("log in as %s (seed first with --seed, or check --password): %w", name, err)
		}
		b.cookies = append(b.cookies, cookie)
		if api {
			token, err := personalToken(ctx, b.opts.URL, cookie)
			if err != nil {
				return fmt.Errorf("make an API token for %s: %w", name, err)
			}
			b.tokens = append(b.tokens, token)
		}
	}
	return nil
}

// newToken finds the token the apps settings page shows once.
var newToken = regexp.MustCompile(`id="new-token">([^<]+)<`)

// personalToken makes a personal API token on the settings page with
// the session cookie, and returns it.
func personalToken(ctx context.Context, base, cookie string) (string, error) {
	form := url.Values{"name": {"retwis bench"}}
	req, err := http.NewRequestWithContext(ctx, "POST", base+"/settings/apps/token", strings.NewReader(form.Encode()))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.AddCookie(&http.Cookie{Name: retwis.SessionCookie, Value: cookie})
	res, err := noRedirects.Do(req)
	if err != nil {
		return "", err
	}
	defer res.Body.Close()
	page, err := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	if err != nil {
		return "", err
	}
	m := newToken.FindSubmatch(page)
	if res.StatusCode != http.StatusOK || m == nil {
		return "", fmt.Errorf("the settings page answered %s without a token", res.Status)
	}
	return string(m[1]), nil
}

// noRedirects is an HTTP client that shows each redirect instead of
// following it.
var noRedirects = &http.Client{Timeout: 30 * time.Second,
	CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// loginAs logs in and returns the auth cookie.
func loginAs(ctx context.Context, base, name, password string) (string, error) {
	form := url.Values{"username": {name}, "password": {password}}
	req, err := http.NewRequestWithContext(ctx, "POST", base+"/login", strings.NewReader(form.Encode()))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	res, err := noRedirects.Do(req)
	if err != nil {
		return "", err
	}
	res.Body.Close()
	for _, c := range res.Cookies() {
		if c.Name == retwis.SessionCookie && c.Value != "" && res.StatusCode == http.StatusSeeOther {
			return c.Value, nil
		}
	}
	return "", fmt.Errorf("login answered %s", res.Status)
}
