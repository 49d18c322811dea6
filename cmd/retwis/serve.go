package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/mail"
	"runtime"
	"time"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/api"
	"github.com/retwis/retwis/internal/middleware"
	"github.com/retwis/retwis/internal/mux"
	"github.com/retwis/retwis/internal/redisconn"
	"github.com/retwis/retwis/internal/snowflake"
	"github.com/retwis/retwis/internal/store"
	"github.com/retwis/retwis/internal/store/delivery"
	"github.com/retwis/retwis/internal/store/kernel"
	pushstore "github.com/retwis/retwis/internal/store/push"
	"github.com/retwis/retwis/internal/store/schema"
	"github.com/retwis/retwis/internal/streaming"
	"github.com/retwis/retwis/internal/web"
	"github.com/retwis/retwis/redlock"
)

// serveConfig is the configuration of `retwis serve`.
type serveConfig struct {
	addr     string // listen address
	redisURL string // external Redis; empty runs an embedded one
	dataDir  string // data of the embedded Redis
	tlsCert  string // serve HTTPS with this certificate…
	tlsKey   string // …and key
	// store is every option of the store the flags set: timelines
	// (HomeCap, HomeHistory, CelebrityThreshold, InactiveAfter), sessions, replicas,
	// command timeouts, the reserve of deleted names, and the limits of
	// posts, follows and reports.
	store store.Options
	// lockServers are the Redis masters of the distributed locks; empty:
	// the database itself (its masters, on a cluster).
	lockServers   string
	maintainEvery time.Duration
	secureCookies bool             // the auth cookie is Secure although served over plain HTTP (TLS ends at a proxy)
	metricsAddr   string           // where /metrics listens; empty: nowhere
	logFlush      time.Duration    // how often the buffered log is written out; 0: every line at once
	logStatic     bool             // log every answer of a static file, not only those that fail or are slow
	role          string           // what this server runs: all, web or worker
	delivery      delivery.Options // Batch, Parallel and ClaimIdle of the delivery workers
	writes        int              // posts, follows and deletions at once; 0: eight times the cores
	rateLimits    bool             // apply the rate limits below (false: none, for benchmarks)
	pageLimits    web.Limits       // logins and sign-ups (posts, follows and reports are in store.Limits)
	apiRate       retwis.Rate      // API calls per token or client address
	streams       streaming.Limits // live stream connections per token, account and address
	proxies       string           // the proxies whose X-Forwarded-For and X-Forwarded-Proto are believed
	publicURL     publicURLValue   // the URL the server is reached at; zero: derived from addr
	contact       emailValue       // the operator's e-mail address, which the instance entities give
	allowPrivate  bool             // requests to addresses users give may reach private ones (safehttp)
	about         string           // the instance's extended description
	privacy       string           // the instance's privacy policy
	media         mediaConfig      // the media's storage and bounds

	// metricsFallback: metricsAddr is the default, which gives way to a
	// free port when another server on the host has it (serveMetrics).
	metricsFallback bool
}

// The default rate limits: a small public server is protected, and a
// person using it never meets them (Mastodon's, where it has them).
var (
	defaultLoginRate        = retwis.Rate{Count: 30, Per: 5 * time.Minute}
	defaultLoginAccountRate = retwis.Rate{Count: 10, Per: 5 * time.Minute}
	defaultLoginDeviceRate  = retwis.Rate{Count: 10, Per: 5 * time.Minute}
	defaultSignupRate       = retwis.Rate{Count: 10, Per: time.Hour}
	defaultPostRate         = retwis.Rate{Count: 300, Per: 3 * time.Hour}
	defaultFollowRate       = retwis.Rate{Count: 400, Per: 24 * time.Hour}
	defaultActionRate       = retwis.Rate{Count: 1000, Per: time.Hour}
	defaultReportRate       = retwis.Rate{Count: 20, Per: time.Hour}
	defaultAPIRate          = retwis.Rate{Count: 300, Per: 5 * time.Minute}
)

// defaultMetricsAddr is where a server serves its metrics unless told.
const defaultMetricsAddr = "127.0.0.1:9464"

// Roles of a server.
const (
	roleAll    = "all"    // pages and delivery
	roleWeb    = "web"    // pages only: posts are delivered by worker servers
	roleWorker = "worker" // delivery and maintenance, and the probes on --addr
)

func (c *serveConfig) register(fs *flag.FlagSet) {
	fs.StringVar(&c.addr, "addr", "127.0.0.1:8080", envHelp("listen `address`", "RETWIS_ADDR"))
	fs.StringVar(&c.redisURL, "redis", "", envHelp(
		"Redis `URL`: redis://[user:pass@]host:port[/db], rediss://… for TLS, unix:///path.sock; "+
			"empty runs an embedded redis-server", "REDIS_URL"))
	fs.StringVar(&c.dataDir, "data-dir", "./data", envHelp("`directory` of the embedded Redis's data", "RETWIS_DATA_DIR"))
	fs.StringVar(&c.tlsCert, "tls-cert", "", envHelp("serve HTTPS with this certificate `file`", "RETWIS_TLS_CERT"))
	fs.StringVar(&c.tlsKey, "tls-key", "", envHelp("private key `file` for --tls-cert", "RETWIS_TLS_KEY"))
	fs.IntVar(&c.store.HomeCap, "home-cap", kernel.DefaultHomeCap,
		envHelp("post ids kept at least in each home timeline `list`; older ones move to its archive", "RETWIS_HOME_CAP"))
	fs.IntVar(&c.store.HomeHistory, "home-history", kernel.DefaultHomeHistory, envHelp(
		"about how many post `ids` each home timeline keeps, list and archive together: maintenance drops the archive's "+
			"oldest chunks past them (0: keep them all)", "RETWIS_HOME_HISTORY"))
	fs.Int64Var(&c.store.CelebrityThreshold, "celebrity-threshold", 10_000,
		envHelp("authors with more `followers` are merged into timelines when read instead of fanned out", "RETWIS_CELEBRITY_THRESHOLD"))
	fs.StringVar(&c.lockServers, "lock-servers", "", envHelp(
		"comma-separated `URLs` of independent Redis masters for the maintenance lock and the id leases (Redlock); "+
			"empty: the database (on a cluster, a lock's keys spread over its masters)", "RETWIS_LOCK_SERVERS"))
	fs.DurationVar(&c.maintainEvery, "maintenance-every", 10*time.Second,
		envHelp("how `often` one of the servers sharing a database does its upkeep", "RETWIS_MAINTENANCE_EVERY"))
	fs.IntVar(&c.store.WaitReplicas, "wait-replicas", -1, envHelp(
		"acknowledge a new account, post or session only once every replica in sync of its master, and at least this `many`, have it (WAIT); "+
			"-1: one if every master has a replica, else none; 0: wait for none", "RETWIS_WAIT_REPLICAS"))
	fs.DurationVar(&c.store.WaitTimeout, "wait-timeout", time.Second, envHelp(
		"how `long` a write waits for its replicas; one they do not confirm in time fails and is taken back", "RETWIS_WAIT_TIMEOUT"))
	fs.DurationVar(&c.store.CommandTimeout, "command-timeout", redisconn.DefaultCommandTimeout, envHelp(
		"how `long` a Redis command may take before the request that sent it fails: what a frozen node costs", "RETWIS_COMMAND_TIMEOUT"))
	fs.DurationVar(&c.store.CircuitOpen, "circuit-open", redisconn.DefaultCircuitOpen, envHelp(
		"once calls to a Redis master have timed out for a second, calls bound for it fail at once for this `long` (503), "+
			"then one tries it again; "+
			"negative: never (each waits for --command-timeout)", "RETWIS_CIRCUIT_OPEN"))
	fs.BoolVar(&c.store.ReplicaReads, "replica-reads", false, envHelp(
		"on a cluster, read post hashes and usernames from replicas (what a replica lacks yet is read from the master)",
		"RETWIS_REPLICA_READS"))
	fs.BoolVar(&c.secureCookies, "secure-cookies", false, envHelp(
		"mark the auth cookie Secure although retwis serves plain HTTP: for a proxy that terminates TLS", "RETWIS_SECURE_COOKIES"))
	fs.StringVar(&c.metricsAddr, "metrics-addr", defaultMetricsAddr, envHelp(
		"serve Prometheus metrics at /metrics on this `address`, apart from the pages (empty: none); "+
			"the default gives way to a free port of 127.0.0.1, logged, when another server on the host holds it", "RETWIS_METRICS_ADDR"))
	fs.DurationVar(&c.logFlush, "log-flush", 100*time.Millisecond, envHelp(
		"gather the log, a line per request, in memory and write it to stderr this `often` (or when 64 KiB are waiting), "+
			"so that no request waits on the write of its line; 0: write each line at once", "RETWIS_LOG_FLUSH"))
	fs.BoolVar(&c.logStatic, "log-static", false, envHelp(
		"log a line for every answer of a static file (/static/…); by default only those that fail or take 100 ms or more "+
			"(all are counted in the metrics)", "RETWIS_LOG_STATIC"))
	fs.StringVar(&c.role, "role", roleAll, envHelp(
		"what this server `runs`: all (pages and delivery), web (pages only) or worker (delivery and upkeep, probes on --addr)", "RETWIS_ROLE"))
	fs.IntVar(&c.delivery.Batch, "delivery-batch", 1000, envHelp(
		"followers a delivery job reaches per pipeline (`count`)", "RETWIS_DELIVERY_BATCH"))
	fs.IntVar(&c.delivery.Parallel, "delivery-parallel", 1, envHelp(
		"groups of delivery jobs one server carries out at once (`count`); more let a long job overlap the others, "+
			"but make posts late for each other's followers", "RETWIS_DELIVERY_PARALLEL"))
	fs.DurationVar(&c.delivery.ClaimIdle, "delivery-claim-idle", 30*time.Second, envHelp(
		"how `long` a delivery job may sit idle with a worker before upkeep takes it over (the worker is presumed dead)",
		"RETWIS_DELIVERY_CLAIM_IDLE"))
	fs.IntVar(&c.writes, "write-concurrency", 0, envHelp(
		"posts, follows and deletions this server runs at once (`count`); the others wait their turn, "+
			"so that pages stay fast during a burst of them; 0: eight times the number of cores", "RETWIS_WRITE_CONCURRENCY"))
	fs.StringVar(&c.proxies, "trusted-proxies", "", envHelp(
		"comma-separated `addresses` or prefixes (10.0.0.0/8) of the proxies whose X-Forwarded-For gives the client's address "+
			"and X-Forwarded-Proto whether it came over HTTPS; empty: none, the peer's address counts", "RETWIS_TRUSTED_PROXIES"))
	fs.Var(&c.publicURL, "public-url", envHelp(
		"the `URL` people reach this server at (https://example.org), which every absolute URL it writes begins with; "+
			"requests for another host are refused (421) but for the probes; empty: http://--addr, refusing no host", "RETWIS_PUBLIC_URL"))
	fs.BoolVar(&c.rateLimits, "rate-limits", true, envHelp(
		"apply the rate limits (--rate-…); false turns them all off, for benchmarks and trusted networks", "RETWIS_RATE_LIMITS"))
	rateVar(fs, &c.pageLimits.Login, "rate-login", defaultLoginRate, envHelp(
		"login attempts per client address (`COUNT/DURATION`, or off)", "RETWIS_RATE_LOGIN"))
	rateVar(fs, &c.pageLimits.LoginAccount, "rate-login-account", defaultLoginAccountRate, envHelp(
		"login attempts per account, from anywhere (`COUNT/DURATION`, or off)", "RETWIS_RATE_LOGIN_ACCOUNT"))
	rateVar(fs, &c.pageLimits.LoginDevice, "rate-login-device", defaultLoginDeviceRate, envHelp(
		"login attempts per known device (a browser that logged in to the account before), "+
			"instead of the two above (`COUNT/DURATION`, or off)", "RETWIS_RATE_LOGIN_DEVICE"))
	rateVar(fs, &c.pageLimits.Signups, "rate-signups", defaultSignupRate, envHelp(
		"sign-ups per client address, on the page and through the API together (`COUNT/DURATION`, or off)", "RETWIS_RATE_SIGNUPS"))
	rateVar(fs, &c.store.Limits.Posts, "rate-posts", defaultPostRate, envHelp(
		"posts, replies, edits and boosts per account (`COUNT/DURATION`, or off)", "RETWIS_RATE_POSTS"))
	rateVar(fs, &c.store.Limits.Follows, "rate-follows", defaultFollowRate, envHelp(
		"follows per account (`COUNT/DURATION`, or off)", "RETWIS_RATE_FOLLOWS"))
	rateVar(fs, &c.store.Limits.Actions, "rate-actions", defaultActionRate, envHelp(
		"favourites, bookmarks and pins per account (`COUNT/DURATION`, or off)", "RETWIS_RATE_ACTIONS"))
	rateVar(fs, &c.store.Limits.Reports, "rate-reports", defaultReportRate, envHelp(
		"reports to the moderators per account (`COUNT/DURATION`, or off)", "RETWIS_RATE_REPORTS"))
	rateVar(fs, &c.apiRate, "rate-api", defaultAPIRate, envHelp(
		"client API calls per token, or per client address without one (`COUNT/DURATION`, or off)", "RETWIS_RATE_API"))
	fs.IntVar(&c.streams.PerToken, "streams-per-token", streaming.DefaultLimits.PerToken, envHelp(
		"live stream `connections` open at once on this server per API token or session; -1: no bound", "RETWIS_STREAMS_PER_TOKEN"))
	fs.IntVar(&c.streams.PerAccount, "streams-per-account", streaming.DefaultLimits.PerAccount, envHelp(
		"live stream `connections` open at once on this server per account; -1: no bound", "RETWIS_STREAMS_PER_ACCOUNT"))
	fs.IntVar(&c.streams.PerAddr, "streams-per-addr", streaming.DefaultLimits.PerAddr, envHelp(
		"live stream `connections` open at once on this server per client address; -1: no bound", "RETWIS_STREAMS_PER_ADDR"))
	fs.Int64Var(&c.store.Limits.MaxFollowing, "max-following", 7500, envHelp(
		"the most `accounts` one account may follow; 0: no bound", "RETWIS_MAX_FOLLOWING"))
	fs.DurationVar(&c.store.InactiveAfter, "inactive-after", 30*24*time.Hour,
		envHelp("users away this `long` are skipped by fanout and rebuilt when they return", "RETWIS_INACTIVE_AFTER"))
	fs.DurationVar(&c.store.SessionIdle, "session-idle", kernel.DefaultSessionIdle, envHelp(
		"a login session unused this `long` ends (each use moves its end on)", "RETWIS_SESSION_IDLE"))
	fs.DurationVar(&c.store.SessionMax, "session-max", kernel.DefaultSessionMax, envHelp(
		"a login session ends this `long` after the login however much it is used (the secret of an account "+
			"from before sessions per device: after its first use since)", "RETWIS_SESSION_MAX"))
	fs.IntVar(&c.store.MaxPostChars, "max-post-chars", retwis.DefaultMaxStatusLen, envHelp(
		"the longest post, in `characters` (code points, a link counting as 23, as Mastodon counts)", "RETWIS_MAX_POST_CHARS"))
	fs.Var(&c.contact, "contact-email", envHelp(
		"the e-mail `address` at which users reach whoever runs the server, which the client API gives", "RETWIS_CONTACT_EMAIL"))
	fs.BoolVar(&c.allowPrivate, "allow-private-addresses", false, envHelp(
		"let the requests the server makes to addresses users give (Web Push endpoints, links previewed) reach private, loopback and link-local addresses, and push endpoints be plain http: for tests, or a push service on your own network", "RETWIS_ALLOW_PRIVATE_ADDRESSES"))
	fs.BoolVar(&c.delivery.LinkPreviews, "link-previews", true, envHelp(
		"make a preview card of the first link of each post, fetched in the background from the page (OpenGraph, oEmbed)", "RETWIS_LINK_PREVIEWS"))
	fs.StringVar(&c.about, "about", "", envHelp(
		"the server's extended description for the client API (plain `text`, paragraphs split by blank lines)", "RETWIS_ABOUT"))
	fs.StringVar(&c.privacy, "privacy-policy", "", envHelp(
		"the server's privacy policy for the client API (plain `text`, paragraphs split by blank lines; empty: a statement of what retwis keeps and shares)", "RETWIS_PRIVACY_POLICY"))
	fs.DurationVar(&c.store.NameReserve, "name-reserve", kernel.DefaultNameReserve, envHelp(
		"how `long` the username of a deleted account stays reserved, so that nobody can pose as its owner", "RETWIS_NAME_RESERVE"))
	c.media.register(fs)
}

// publicURLValue is the flag.Value of --public-url, read when it is set,
// so that a malformed RETWIS_PUBLIC_URL is refused naming it.
type publicURLValue struct{ url middleware.PublicURL }

// String returns the URL's origin, "" if none is set.
func (v *publicURLValue) String() string { return v.url.String() }

// Set reads a public URL (middleware.ParsePublicURL).
func (v *publicURLValue) Set(s string) error {
	u, err := middleware.ParsePublicURL(s)
	if err != nil {
		return err
	}
	v.url = u
	return nil
}

// emailValue is the flag.Value of --contact-email: an address alone,
// refused when malformed (so that a malformed RETWIS_CONTACT_EMAIL is
// refused naming it).
type emailValue struct{ addr string }

// String returns the address, "" if none is set.
func (v *emailValue) String() string { return v.addr }

// Set reads an address: "name@domain", without a display name.
func (v *emailValue) Set(s string) error {
	a, err := mail.ParseAddress(s)
	if err != nil || a.Name != "" || a.Address != s {
		return fmt.Errorf("%q is not an e-mail address", s)
	}
	v.addr = s
	return nil
}

// public is the server's public URL: --public-url, or else the one
// derived from --addr (middleware.DefaultPublicURL).
func (c *serveConfig) public() (middleware.PublicURL, error) {
	if c.publicURL.String() != "" {
		return c.publicURL.url, nil
	}
	p, err := middleware.DefaultPublicURL(c.addr, c.tlsCert != "")
	if err != nil {
		return p, fmt.Errorf("--addr: %w", err)
	}
	return p, nil
}

// check refuses values the flags parse but the server cannot work with.
func (c *serveConfig) check() error {
	if _, err := middleware.ParseProxies(c.proxies); err != nil {
		return fmt.Errorf("--trusted-proxies: %w", err)
	}
	if _, err := c.public(); err != nil {
		return err
	}
	switch {
	case (c.tlsCert == "") != (c.tlsKey == ""):
		return errors.New("--tls-cert and --tls-key go together")
	case c.store.HomeCap < 10:
		return errors.New("--home-cap must be at least 10")
	case c.store.HomeHistory < 0:
		return errors.New("--home-history must be 0 (keep everything) or more")
	case c.store.CelebrityThreshold < 1:
		return errors.New("--celebrity-threshold must be at least 1")
	case c.store.InactiveAfter < time.Minute:
		return errors.New("--inactive-after must be at least 1m")
	case c.store.SessionIdle < time.Minute:
		return errors.New("--session-idle must be at least 1m")
	case c.store.SessionMax < c.store.SessionIdle:
		return errors.New("--session-max must be at least --session-idle")
	case c.store.MaxPostChars < 1 || c.store.MaxPostChars > retwis.MaxStatusLenCeiling:
		return fmt.Errorf("--max-post-chars must be 1 to %d, not %d", retwis.MaxStatusLenCeiling, c.store.MaxPostChars)
	case c.store.NameReserve < time.Minute:
		return errors.New("--name-reserve must be at least 1m")
	case c.maintainEvery < time.Second:
		return errors.New("--maintenance-every must be at least 1s")
	case c.role != roleAll && c.role != roleWeb && c.role != roleWorker:
		return fmt.Errorf("--role must be all, web or worker, not %q", c.role)
	case c.delivery.Batch < 1 || c.delivery.Parallel < 1:
		return errors.New("--delivery-batch and --delivery-parallel must be at least 1")
	case c.delivery.ClaimIdle < time.Second:
		return errors.New("--delivery-claim-idle must be at least 1s")
	case c.store.WaitReplicas < -1:
		return errors.New("--wait-replicas must be -1 (automatic), 0 or more")
	case c.store.WaitTimeout < time.Millisecond:
		return errors.New("--wait-timeout must be at least 1ms")
	case c.store.CommandTimeout < time.Millisecond:
		return errors.New("--command-timeout must be at least 1ms")
	case c.store.CircuitOpen >= 0 && c.store.CircuitOpen < time.Millisecond:
		return errors.New("--circuit-open must be at least 1ms, or negative (no circuit breakers)")
	case c.store.Limits.MaxFollowing < 0:
		return errors.New("--max-following must be 0 (no bound) or more")
	case c.logFlush < 0:
		return errors.New("--log-flush must be 0 (every line at once) or more")
	case c.writes < 0:
		return errors.New("--write-concurrency must be 0 (twice the cores) or more")
	case min(c.streams.PerToken, c.streams.PerAccount, c.streams.PerAddr) < -1 ||
		c.streams.PerToken == 0 || c.streams.PerAccount == 0 || c.streams.PerAddr == 0:
		return errors.New("--streams-per-token, --streams-per-account and --streams-per-addr must be at least 1, or -1 (no bound)")
	}
	return nil
}

func runServe(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cfg, err := parseServe(args, stderr)
	if err != nil {
		return err
	}
	out, stopLog := bufferLog(stderr, cfg.logFlush)
	defer stopLog()
	log := slog.New(slog.NewTextHandler(out, nil))
	return serve(ctx, cfg, log, nil)
}

// parseServe reads the configuration of `retwis serve` from args and the
// environment, and checks it.
func parseServe(args []string, stderr io.Writer) (serveConfig, error) {
	var cfg serveConfig
	fs := newFlagSet("serve", stderr)
	cfg.register(fs)
	if err := parseFlags(fs, args); err != nil {
		return cfg, err
	}
	if err := cfg.check(); err != nil {
		fmt.Fprintf(stderr, "retwis serve: %v\n", err)
		return cfg, errUsage
	}
	cfg.metricsFallback = true
	fs.Visit(func(f *flag.Flag) { // the flags set, on the command line or by their variable
		if f.Name == "metrics-addr" {
			cfg.metricsFallback = false
		}
	})
	return cfg, nil
}

// serve runs the web server until ctx is cancelled, then shuts down
// gracefully. ready, if not nil, is called with the listening address.
func serve(ctx context.Context, cfg serveConfig, log *slog.Logger, ready func(addr string)) error {
	db, err := openDatabase(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer db.Close()
	locks, err := serverLocks(cfg, db)
	if err != nil {
		return err
	}
	defer locks.Close()
	ids := snowflake.NewLeased()
	stopLease, err := snowflake.Lease(ctx, locks.WithOptions(idLeaseLocks), schema.WorkerLock, idLeaseTTL, ids, log)
	if err != nil {
		return err
	}
	defer stopLease()
	reg := newRegistry()
	storeOpts := cfg.store
	storeOpts.Log, storeOpts.IDs, storeOpts.Metrics = log, ids, reg
	if !cfg.rateLimits {
		storeOpts.Limits.Posts, storeOpts.Limits.Follows, storeOpts.Limits.Reports = retwis.Rate{}, retwis.Rate{}, retwis.Rate{}
		storeOpts.Limits.Actions = retwis.Rate{}
		cfg.pageLimits, cfg.apiRate = web.Limits{}, retwis.Rate{}
	}
	switch {
	case storeOpts.WaitReplicas >= 0:
	case db.embedded: // automatic, on a redis-server of its own: there is no replica to wait for, nor to warn about
		storeOpts.WaitReplicas = 0
	default: // automatic: decided once, from the topology at start
		if storeOpts.WaitReplicas, err = replicasToWaitFor(ctx, db.client, log); err != nil {
			return err
		}
	}
	storeOpts.Invalidations = db.invalidations
	st, err := store.New(db.client, storeOpts)
	if err != nil {
		return err
	}
	if err := st.Migrate(ctx, log); err != nil {
		return err
	}
	med, err := cfg.media.service(ctx, st, cfg.dataDir, cfg.rateLimits, log)
	if err != nil {
		return err
	}
	defer med.Close() // after the HTTP server: the pictures queued are processed

	if cfg.role != roleWeb {
		// The workers get a client of their own, so that pages never queue
		// behind delivery's pipelines.
		jobs, err := connect(ctx, db.url, db.opts, log)
		if err != nil {
			return err
		}
		work := st.Through(jobs)
		defer work.Close()
		stopWorkers := startWorkers(work, locks, cmp.Or(cfg.maintainEvery, 10*time.Second), cfg.delivery, cfg.pushOptions(), cfg.cardOptions(), med, log) // zero: the default
		defer stopWorkers()                                                                                                                               // after the HTTP server: it drains jobs in flight
	}
	writes := cmp.Or(cfg.writes, 8*runtime.GOMAXPROCS(0))
	proxies, err := middleware.ParseProxies(cfg.proxies) // checked by check
	if err != nil {
		return fmt.Errorf("--trusted-proxies: %w", err)
	}
	public, err := cfg.public() // checked by check
	if err != nil {
		return err
	}
	h, err := mux.New(mux.Options{Store: st, Media: med, Log: log, Metrics: reg, Writes: writes, Proxies: proxies,
		ProbesOnly: cfg.role == roleWorker, PublicURL: public,
		Pages: web.Options{SecureCookies: cfg.secureCookies, Limits: cfg.pageLimits, LogStatic: cfg.logStatic},
		API: api.Options{Rate: cfg.apiRate, Signups: cfg.pageLimits.Signups, Site: api.Site{Contact: cfg.contact.String(), About: cfg.about, PrivacyPolicy: cfg.privacy},
			Push: pushstore.New(st, pushstore.Options{AllowHTTP: cfg.allowPrivate})},
		Streaming: streaming.Options{Limits: cfg.streams}})
	if err != nil {
		return err
	}
	defer h.Close() // its WebSockets, which Shutdown does not wait for, before the database goes
	if cfg.metricsAddr != "" {
		stopMetrics, err := serveMetrics(cfg.metricsAddr, cfg.metricsFallback, reg, log)
		if err != nil {
			return err
		}
		defer stopMetrics()
	}
	ln, err := net.Listen("tcp", cfg.addr)
	if err != nil {
		return fmt.Errorf("--addr (RETWIS_ADDR): %w", err)
	}
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      30 * time.Second,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	// Shutdown waits for requests to finish: the live streams end at once
	// (they extend the write timeout themselves, write by write).
	srv.RegisterOnShutdown(h.Close)
	return listenAndServe(ctx, srv, ln, cfg, log, ready)
}

// replicasToWaitFor returns 1 if every master has a replica, else 0.
func replicasToWaitFor(ctx context.Context, client rueidis.Client, log *slog.Logger) (int, error) {
	n, err := redisconn.FewestReplicas(ctx, client)
	if err != nil {
		return 0, err
	}
	if n == 0 {
		log.Warn("a Redis master has no replica: writes are acknowledged once the master has them (see --wait-replicas)")
	}
	return min(n, 1), nil
}

// idLeaseTTL is the validity of a server's lease on its id worker
// number, extended every third of it: a server that dies frees its
// number after this long.
const idLeaseTTL = 10 * time.Second

// idLeaseLocks are the options of the id leases' locks. A lease is
// extended for as long as the server runs: it guards no work that could
// hang, only the number the server's ids carry. Each lock server may take
// a second to answer (not the 100 ms of the default for a 10 s lock): a
// server whose CPU is saturated by a burst of posts answers late, and an
// extension that fails every time until the lease ends costs the server
// its number, and its posts a 503 until it has leased one again.
var idLeaseLocks = redlock.Options{MaxExtensions: -1, InstanceTimeout: time.Second}

// serverLocks returns the lock client for the server's distributed locks
// (maintenance, the lease on its id worker number), whose locks may be
// extended maintenanceMaxExtensions times (the lease has options of its
// own, idLeaseLocks, through WithOptions): the configured lock servers; else, on a Redis
// Cluster, its masters, a lock's keys spread over their slots so that
// it outlives the failover of one of three masters (redlock.NewOnCluster);
// else the database itself, a single instance.
func serverLocks(cfg serveConfig, db *database) (*redlock.Client, error) {
	opts := redlock.Options{MaxExtensions: maintenanceMaxExtensions}
	switch {
	case cfg.lockServers != "":
		urls, err := redlock.ParseServers(cfg.lockServers)
		if err != nil {
			return nil, fmt.Errorf("--lock-servers: %w", err)
		}
		return redlock.New(urls, opts)
	case db.client.Mode() == rueidis.ClientModeCluster:
		return redlock.NewOnCluster(db.client, redlock.DefaultClusterKeys, opts)
	}
	return redlock.NewFromClients([]rueidis.Client{db.client}, opts)
}

// listenAndServe serves on ln until ctx is cancelled or serving fails,
// then gives requests in flight ten seconds to finish.
func listenAndServe(ctx context.Context, srv *http.Server, ln net.Listener, cfg serveConfig, log *slog.Logger, ready func(string)) error {
	scheme := "http"
	if cfg.tlsCert != "" {
		scheme = "https"
	}
	log.Info("retwis is listening", "url", fmt.Sprintf("%s://%s/", scheme, ln.Addr()))
	if ready != nil {
		ready(ln.Addr().String())
	}
	errc := make(chan error, 1)
	go func() {
		if cfg.tlsCert != "" {
			errc <- srv.ServeTLS(ln, cfg.tlsCert, cfg.tlsKey)
		} else {
			errc <- srv.Serve(ln)
		}
	}()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	log.Info("shutting down")
	shutCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutCtx); err != nil {
		srv.Close() // cut the stragglers before the database goes away
		return fmt.Errorf("shutdown: %w", err)
	}
	return nil
}
