package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/retwis/retwis/internal/redisserver"
)

// The faults a scenario injects into one master.
const (
	faultKill   = "kill"   // SIGKILL
	faultFreeze = "freeze" // SIGSTOP, then SIGCONT after --freeze
	faultLag    = "lag"    // its replicas frozen for --lag, then it is killed
)

// scenario is one fault, with or without an operator, who restarts the
// failed node as soon as its replica has taken over.
type scenario struct {
	fault    string
	operator bool
}

func (s scenario) String() string {
	if s.operator {
		return s.fault + ", operator"
	}
	return s.fault + ", nobody"
}

// outcome is what one run of a scenario measured.
type outcome struct {
	requests, served int            // requests due during the fault window, and those that succeeded
	promoted         time.Duration  // from the fault to the replica's takeover: the fault window
	full             time.Duration  // from the fault to the last failed request; -1: failures went on to the end
	after            int            // requests that failed after the fault window
	why              map[string]int // the errors of those, by kind of request and status
	late             []string       // the failures more than a second after the takeover: when, what
	before           int            // requests that failed before the fault (of the warm-up)
}

// share is the share of the requests due in the fault window that
// succeeded.
func (o outcome) share() float64 { return float64(o.served) / float64(max(o.requests, 1)) }

// config is what every scenario shares.
type config struct {
	retwis      string        // the retwis binary
	dir         string        // where clusters and logs go
	nodeTimeout time.Duration // cluster-node-timeout
	every       time.Duration // one request every
	users       int           // signed up before the load
	warmup      time.Duration // load before the fault
	observe     time.Duration // load after the fault
	freeze      time.Duration // how long a frozen master stays frozen (nobody's help)
	lag         time.Duration // how long the replicas are frozen before their master dies
	replicas    int           // per master
	spares      int           // replicas beyond those, which migrate
}

// run starts a cluster (the recommended topology, unless cfg says other
// replicas) and two retwis servers on it, loads them, injects the fault
// into a master, and measures.
func (cfg config) run(ctx context.Context, s scenario, dir string) (outcome, error) {
	o := redisserver.Recommended(dir, cfg.nodeTimeout)
	o.Replicas, o.Spares = cfg.replicas, cfg.spares
	c, err := redisserver.StartClusterWith(ctx, o)
	if err != nil {
		return outcome{}, err
	}
	defer func() {
		for _, n := range c.Nodes {
			n.Resume()
		}
		c.Stop()
	}()
	servers, stop, err := cfg.startServers(ctx, "redis://"+strings.Join(c.Addrs(), ","), dir)
	if err != nil {
		return outcome{}, err
	}
	defer stop()
	l := newLoad(servers, cfg.every)
	setup, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if err := l.signUp(setup, cfg.users); err != nil {
		return outcome{}, err
	}
	return cfg.underLoad(ctx, c, l, s)
}

// startServers starts two retwis servers on url, logging into dir, and
// returns their base URLs; stop ends them.
func (cfg config) startServers(ctx context.Context, url, dir string) (bases []string, stop func(), err error) {
	var stops []func()
	stop = func() {
		for _, s := range stops {
			s()
		}
	}
	for i := range 2 {
		base, stopOne, err := cfg.serve(ctx, url, filepath.Join(dir, "retwis"+strconv.Itoa(i)+".log"))
		if err != nil {
			stop()
			return nil, nil, err
		}
		bases, stops = append(bases, base), append(stops, stopOne)
	}
	return bases, stop, nil
}

// underLoad runs l's load for cfg.warmup, injects the fault of s, goes
// on for cfg.observe, and measures.
func (cfg config) underLoad(ctx context.Context, c *redisserver.Cluster, l *load, s scenario) (outcome, error) {
	loadCtx, stopLoad := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { l.run(loadCtx); close(done) }()
	time.Sleep(cfg.warmup)
	start := time.Now()
	promoted, err := cfg.inject(ctx, c, s)
	stopAt := start.Add(cfg.observe)
	time.Sleep(time.Until(stopAt))
	stopLoad()
	<-done
	if err != nil {
		return outcome{}, err
	}
	out := measure(l.since(start), start, promoted, stopAt)
	for _, r := range l.since(time.Time{}) {
		if r.at.Before(start) && r.err != nil {
			out.before++
		}
	}
	return out, nil
}

// inject brings the fault of s upon a master of c, waits until a replica
// has taken over, and plays the operator if s has one (restarting the
// failed node) or else lets a frozen node go on after cfg.freeze. It
// returns when the takeover happened.
func (cfg config) inject(ctx context.Context, c *redisserver.Cluster, s scenario) (time.Time, error) {
	// A master with the fewest replicas (not the one a spare replicates).
	masters := c.Masters(ctx)
	victim := masters[0]
	replicas := replicasOf(ctx, c, victim)
	for _, m := range masters[1:] {
		if r := replicasOf(ctx, c, m); len(r) < len(replicas) {
			victim, replicas = m, r
		}
	}
	if s.fault == faultLag {
		for _, r := range replicas {
			r.Pause()
		}
		time.Sleep(cfg.lag)
	}
	if s.fault == faultFreeze {
		victim.Pause()
	} else {
		victim.Kill()
	}
	for _, r := range replicas {
		r.Resume()
	}
	if err := c.WaitFailover(ctx, 3, victim); err != nil {
		return time.Time{}, err
	}
	promoted := time.Now()
	switch {
	case s.operator:
		victim.Kill()
		if _, err := c.Restart(ctx, victim); err != nil {
			return promoted, fmt.Errorf("the operator's restart: %w", err)
		}
	case s.fault == faultFreeze:
		go func() {
			time.Sleep(time.Until(promoted.Add(cfg.freeze)))
			victim.Resume()
		}()
	}
	return promoted, nil
}

// replicasOf returns the nodes of c that replicate master m.
func replicasOf(ctx context.Context, c *redisserver.Cluster, m *redisserver.Server) []*redisserver.Server {
	_, port, _ := net.SplitHostPort(m.Addr())
	var out []*redisserver.Server
	for _, n := range c.Nodes {
		info, err := n.Command(ctx, "INFO", "replication")
		if err == nil && strings.Contains(info, "master_port:"+port+"\r\n") {
			out = append(out, n)
		}
	}
	return out
}

// measure sums up the results of the requests due from the fault on.
func measure(results []result, start, promoted, end time.Time) outcome {
	o := outcome{promoted: promoted.Sub(start), why: map[string]int{}}
	var lastFailed time.Time
	for _, r := range results {
		if r.at.Before(promoted) {
			o.requests++
			if r.err == nil {
				o.served++
			}
		} else if r.err != nil {
			o.after++
			o.why[r.kind+": "+reason(r.err)]++
			if r.at.Sub(promoted) > time.Second {
				o.late = append(o.late, fmt.Sprintf("%.1fs %s %s", r.at.Sub(start).Seconds(), r.kind, reason(r.err)))
			}
		}
		if r.err != nil && r.at.After(lastFailed) {
			lastFailed = r.at
		}
	}
	// Full service needs the takeover, whenever the last failure.
	o.full = max(o.promoted, lastFailed.Sub(start))
	// Failures in the last two seconds: not back to full service yet.
	if slices.ContainsFunc(results, func(r result) bool { return r.err != nil && end.Sub(r.at) < 2*time.Second }) {
		o.full = -1
	}
	return o
}

// serve starts `retwis serve` on url, on a free port of 127.0.0.1, logging
// to logPath, and waits until it is ready. stop ends it.
func (cfg config) serve(ctx context.Context, url, logPath string) (base string, stop func(), err error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	addr := l.Addr().String()
	l.Close()
	log, err := os.Create(logPath)
	if err != nil {
		return "", nil, err
	}
	cmd := exec.CommandContext(ctx, cfg.retwis, "serve", "--addr", addr, "--redis", url,
		"--wait-replicas", "1", "--rate-limits=false", "--metrics-addr", "",
		"--trusted-proxies", "127.0.0.1") // the load's X-Forwarded-For: a client address a user
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		log.Close()
		return "", nil, fmt.Errorf("retwis serve: %w", err)
	}
	stop = func() {
		cmd.Process.Signal(os.Interrupt)
		cmd.Wait()
		log.Close()
	}
	base = "http://" + addr
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if resp, err := http.Get(base + "/readyz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return base, stop, nil
			}
		}
		if time.Now().After(deadline) {
			stop()
			return "", nil, fmt.Errorf("retwis serve on %s not ready after 30s (see %s)", addr, logPath)
		}
	}
}

// reason is the gist of a failed request's error: its status, or what
// kept it from one.
func reason(err error) string {
	msg := err.Error()
	if i := strings.LastIndex(msg, ": "); i >= 0 {
		msg = msg[i+2:]
	}
	return msg
}
