package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/redisconn"
	"github.com/retwis/retwis/internal/store"
	"github.com/retwis/retwis/internal/streaming"
	"github.com/retwis/retwis/internal/testkit/must"
	"github.com/retwis/retwis/internal/testkit/redistest"
	"github.com/retwis/retwis/internal/testkit/syncbuf"
)

// startServe runs `retwis serve` with cfg in the background and returns
// its base URL and a function that stops it and returns serve's error.
func startServe(t *testing.T, cfg serveConfig) (string, func() error) {
	t.Helper()
	return startServeLogging(t, cfg, io.Discard)
}

// startServeLogging is startServe writing serve's log to w.
func startServeLogging(t *testing.T, cfg serveConfig, w io.Writer) (string, func() error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	addrc := make(chan string, 1)
	errc := make(chan error, 1)
	log := slog.New(slog.NewTextHandler(w, nil))
	if cfg.media.dir == "" && cfg.media.s3.Endpoint == "" {
		cfg.media.dir = t.TempDir() // not ./data/media in the package's directory
	}
	go func() { errc <- serve(ctx, cfg, log, func(a string) { addrc <- a }) }()
	select {
	case addr := <-addrc:
		return "http://" + addr, func() error { cancel(); return <-errc }
	case err := <-errc:
		cancel()
		t.Fatalf("serve: %v", err)
	}
	return "", nil
}

// defaultStoreOptions are the store options of a test server: the
// timeline settings the flags default to.
func defaultStoreOptions() store.Options {
	return store.Options{HomeCap: 800, CelebrityThreshold: 10_000, InactiveAfter: 30 * 24 * time.Hour}
}

// TestServeEmbeddedPersists runs serve on a redis-server of its own, as
// `make run` does: it starts without a warning, keeps its data across a
// restart, and refuses a second server on the same data directory.
func TestServeEmbeddedPersists(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg := serveConfig{addr: "127.0.0.1:0", dataDir: dir, store: defaultStoreOptions(), maintainEvery: 10 * time.Second}
	cfg.store.WaitReplicas = -1 // the default: one replica if every master has one
	var log syncbuf.Buffer
	base, stop := startServeLogging(t, cfg, &log)
	if strings.Contains(log.String(), "level=WARN") {
		t.Errorf("a server on its own redis-server warns:\n%s", log.String())
	}
	jar := must.Value(cookiejar.New(nil))(t)
	c := &http.Client{Jar: jar}
	res, err := c.PostForm(base+"/register", url.Values{"username": {"kept"}, "password": {"password1"}, "password2": {"password1"}})
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("register: %v %v", res, err)
	}
	res.Body.Close()
	res = must.Value(c.PostForm(base+"/post", url.Values{"status": {"written before the restart"}}))(t)
	res.Body.Close()

	// A second server on the same data directory is refused.
	if err := serve(t.Context(), cfg, slog.New(slog.NewTextHandler(io.Discard, nil)), nil); err == nil ||
		!strings.Contains(err.Error(), "in use") || !strings.Contains(err.Error(), "--data-dir") {
		t.Fatalf("second serve on the same data dir: %v", err)
	}
	if err := stop(); err != nil {
		t.Fatalf("graceful shutdown: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "appendonlydir")); err != nil {
		t.Fatalf("no append-only file in the data directory: %v", err)
	}

	base, stop = startServe(t, cfg)
	defer stop()
	res, err = c.Get(base + "/")
	if err != nil {
		t.Fatal(err)
	}
	body := must.Value(io.ReadAll(res.Body))(t)
	res.Body.Close()
	if !bytes.Contains(body, []byte("Hi, kept")) || !bytes.Contains(body, []byte("written before the restart")) {
		t.Fatalf("data did not survive a restart:\n%s", body)
	}
}

// TestServeWithoutRedisServer: with no redis-server to run and no
// --redis, serve refuses to start and says how to get one.
func TestServeWithoutRedisServer(t *testing.T) {
	t.Setenv("PATH", t.TempDir()) // no redis-server to be found
	err := serve(t.Context(), serveConfig{addr: "127.0.0.1:0", dataDir: t.TempDir()}, slog.New(slog.NewTextHandler(io.Discard, nil)), nil)
	if err == nil {
		t.Fatal("serve started without a Redis")
	}
	for _, want := range []string{"redis-server is not installed", "apt-get install redis-server", "make run", "--redis", "REDIS_URL"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error does not say %q: %v", want, err)
		}
	}
}

func TestServeBadRedisURL(t *testing.T) {
	t.Parallel()
	err := serve(t.Context(), serveConfig{addr: "127.0.0.1:0", redisURL: "http://nope"}, slog.New(slog.NewTextHandler(io.Discard, nil)), nil)
	if err == nil || !strings.Contains(err.Error(), "bad Redis URL") {
		t.Fatalf("err = %v", err)
	}
}

func TestRunUsage(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args   []string
		status int
		out    string
	}{
		{nil, 0, "Commands:"},
		{[]string{"help"}, 0, "serve"},
		{[]string{"bogus"}, 2, `unknown command "bogus"`},
		{[]string{"serve", "-h"}, 0, "-redis"},
		{[]string{"serve", "--nope"}, 2, "flag provided but not defined"},
		{[]string{"serve", "extra"}, 2, "unexpected argument"},
		{[]string{"serve", "--tls-cert", "x"}, 2, "go together"},
		{[]string{"bench", "--redis", "redis://127.0.0.1:1", "--scenarios", "home,nope"}, 2, `unknown scenario "nope"`},
		{[]string{"bench", "--redis", "redis://127.0.0.1:1", "--curves", "/proc/no/such/dir"}, 2, "curves directory"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			var out bytes.Buffer
			if got := run(t.Context(), tc.args, &out, &out); got != tc.status {
				t.Fatalf("status %d, want %d; output:\n%s", got, tc.status, out.String())
			}
			if !strings.Contains(out.String(), tc.out) {
				t.Fatalf("output lacks %q:\n%s", tc.out, out.String())
			}
		})
	}
}

// TestServeRefusesBadSettings runs `retwis serve` with settings that
// parse but make no sense, or malformed environment variables: it
// refuses to start, naming the flag or variable, and starts nothing.
func TestServeRefusesBadSettings(t *testing.T) {
	for _, tc := range []struct {
		args []string
		env  map[string]string
		want string
	}{
		{[]string{"--maintenance-every", "-1s"}, nil, "--maintenance-every"},
		{[]string{"--home-cap", "5"}, nil, "--home-cap"},
		{nil, map[string]string{"RETWIS_HOME_CAP": "80O"}, "RETWIS_HOME_CAP"},
		{[]string{"--home-history", "-1"}, nil, "--home-history"},
		{nil, map[string]string{"RETWIS_HOME_HISTORY": "10k"}, "RETWIS_HOME_HISTORY"},
		{nil, map[string]string{"RETWIS_INACTIVE_AFTER": "30 days"}, "RETWIS_INACTIVE_AFTER"},
		{nil, map[string]string{"RETWIS_MAINTENANCE_EVERY": "-1s"}, "--maintenance-every"},
		{[]string{"--rate-posts", "0/1m"}, nil, "-rate-posts"},
		{nil, map[string]string{"RETWIS_RATE_API": "300 a minute"}, "RETWIS_RATE_API"},
		{nil, map[string]string{"RETWIS_SESSION_IDLE": "30 days"}, "RETWIS_SESSION_IDLE"},
		{nil, map[string]string{"RETWIS_SESSION_MAX": "1y"}, "RETWIS_SESSION_MAX"},
		{[]string{"--session-idle", "10s"}, nil, "--session-idle"},
		{[]string{"--session-idle", "48h", "--session-max", "24h"}, nil, "--session-max"},
		{[]string{"--trusted-proxies", "10.0.0.0/8,proxy.example"}, nil, "--trusted-proxies"},
		{[]string{"--command-timeout", "0s"}, nil, "--command-timeout"},
		{[]string{"--circuit-open", "0s"}, nil, "--circuit-open"},
		{nil, map[string]string{"RETWIS_CIRCUIT_OPEN": "2 seconds"}, "RETWIS_CIRCUIT_OPEN"},
		{[]string{"--name-reserve", "0s"}, nil, "--name-reserve"},
		{nil, map[string]string{"RETWIS_NAME_RESERVE": "30 days"}, "RETWIS_NAME_RESERVE"},
		{[]string{"--public-url", "social.example"}, nil, "-public-url"},
		{[]string{"--public-url", "https://social.example/retwis"}, nil, "-public-url"},
		{nil, map[string]string{"RETWIS_PUBLIC_URL": "ftp://social.example"}, "RETWIS_PUBLIC_URL"},
		{[]string{"--contact-email", "Ops <ops@social.example>"}, nil, "-contact-email"},
		{nil, map[string]string{"RETWIS_CONTACT_EMAIL": "ops at social.example"}, "RETWIS_CONTACT_EMAIL"},
		{[]string{"--streams-per-token", "0"}, nil, "--streams-per-token"},
		{[]string{"--streams-per-addr", "-2"}, nil, "--streams-per-addr"},
		{nil, map[string]string{"RETWIS_STREAMS_PER_ACCOUNT": "lots"}, "RETWIS_STREAMS_PER_ACCOUNT"},
		{[]string{"--max-post-chars", "0"}, nil, "--max-post-chars must be 1 to 5000, not 0"},
		{[]string{"--max-post-chars", "5001"}, nil, "--max-post-chars must be 1 to 5000"},
		{nil, map[string]string{"RETWIS_MAX_POST_CHARS": "500 chars"}, "RETWIS_MAX_POST_CHARS"},
		{nil, map[string]string{"RETWIS_MAX_POST_CHARS": "-1"}, "--max-post-chars"},
		{nil, map[string]string{"RETWIS_MEDIA_QUOTA": "1XB"}, "RETWIS_MEDIA_QUOTA"},
		{[]string{"--media-quota", "-1MB"}, nil, "-media-quota"},
		{nil, map[string]string{"RETWIS_RATE_UPLOADS": "often"}, "RETWIS_RATE_UPLOADS"},
	} {
		t.Run(strings.Join(tc.args, " ")+fmt.Sprint(tc.env), func(t *testing.T) {
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			var stderr syncbuf.Buffer
			args := append([]string{"serve", "--addr", "127.0.0.1:0", "--redis", "redis://127.0.0.1:1"}, tc.args...)
			if code := run(t.Context(), args, io.Discard, &stderr); code != 2 {
				t.Fatalf("exit status %d; want 2 (usage)", code)
			}
			if !strings.Contains(stderr.String(), tc.want) {
				t.Fatalf("the message does not name %s: %s", tc.want, stderr.String())
			}
		})
	}
}

// TestEnvironmentSetsDefaults checks that a well-formed environment
// variable sets its flag's default, and that the flag wins over it.
func TestEnvironmentSetsDefaults(t *testing.T) {
	t.Setenv("RETWIS_HOME_CAP", "123")
	t.Setenv("RETWIS_INACTIVE_AFTER", "48h")
	t.Setenv("RETWIS_RATE_POSTS", "5/1m")
	t.Setenv("RETWIS_SESSION_IDLE", "48h")
	t.Setenv("RETWIS_SESSION_MAX", "100h")
	t.Setenv("RETWIS_NAME_RESERVE", "48h")
	t.Setenv("RETWIS_STREAMS_PER_TOKEN", "4")
	t.Setenv("RETWIS_STREAMS_PER_ADDR", "-1")
	t.Setenv("RETWIS_MAX_POST_CHARS", "1000")
	var cfg serveConfig
	fs := newFlagSet("serve", io.Discard)
	cfg.register(fs)
	if err := parseFlags(fs, []string{"--inactive-after", "72h", "--rate-api", "off", "--session-max", "720h", "--streams-per-addr", "100"}); err != nil {
		t.Fatal(err)
	}
	if want := (streaming.Limits{PerToken: 4, PerAccount: streaming.DefaultLimits.PerAccount, PerAddr: 100}); cfg.streams != want {
		t.Fatalf("stream limits %+v; want %+v: 4 from the environment, the default, 100 from the flag", cfg.streams, want)
	}
	if cfg.store.SessionIdle != 48*time.Hour || cfg.store.SessionMax != 720*time.Hour {
		t.Fatalf("sessions: idle %s, max %s; want 48h from the environment and 720h from the flag",
			cfg.store.SessionIdle, cfg.store.SessionMax)
	}
	if cfg.store.HomeCap != 123 || cfg.store.InactiveAfter != 72*time.Hour || cfg.store.NameReserve != 48*time.Hour {
		t.Fatalf("home cap %d, inactive after %s, name reserve %s; want 123 and 48h from the environment and 72h from the flag",
			cfg.store.HomeCap, cfg.store.InactiveAfter, cfg.store.NameReserve)
	}
	if cfg.store.MaxPostChars != 1000 {
		t.Fatalf("max post chars %d; want 1000 from the environment", cfg.store.MaxPostChars)
	}
	if cfg.store.Limits.Posts != (retwis.Rate{Count: 5, Per: time.Minute}) || !cfg.apiRate.Off() ||
		cfg.pageLimits.Login != defaultLoginRate || !cfg.rateLimits {
		t.Fatalf("rates: posts %v, api %v, login %v, limits on %v; want 5/1m from the environment, off from the flag, the default",
			cfg.store.Limits.Posts, cfg.apiRate, cfg.pageLimits.Login, cfg.rateLimits)
	}
}

// TestReplicasToWaitFor decides, from the topology, whether writes wait
// for a replica: yes behind a master with one, no on a lone server.
func TestReplicasToWaitFor(t *testing.T) {
	t.Parallel()
	master, _ := redistest.Replicated(t)
	lone := redistest.Start(t)
	for _, tc := range []struct {
		url  string
		want int
	}{{master.URL, 1}, {lone.URL, 0}} {
		c, err := redisconn.Dial(tc.url)
		if err != nil {
			t.Fatal(err)
		}
		n, err := replicasToWaitFor(t.Context(), c, slog.New(slog.NewTextHandler(io.Discard, nil)))
		c.Close()
		if err != nil || n != tc.want {
			t.Errorf("%s: %d, %v; want %d", tc.url, n, err, tc.want)
		}
	}
}
