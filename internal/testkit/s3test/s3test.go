// Package s3test runs a real S3-compatible server for tests: SeaweedFS's
// `weed mini` with its S3 gateway, on free ports of 127.0.0.1, with one
// identity whose keys sign and are checked on every request.
//
// Start gives a test a fresh bucket name on a server that the tests of
// the package share (started by the first that asks, stopped by Run from
// the package's TestMain: os.Exit(s3test.Run(m))); NewServer gives a test
// a server of its own, which it may stop. The weed binary is RETWIS_WEED,
// or weed on the PATH, or $(go env GOPATH)/bin/weed, where
// scripts/s3-server.sh (run by `make test`) builds it; without it the test
// fails, saying so.
package s3test

import (
	"context"
	"errors"
	"fmt"
	"go/build"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// EnvWeed names the weed binary to run, overriding the search.
const EnvWeed = "RETWIS_WEED"

// The credentials of the one identity of every server, and its region.
const (
	AccessKey = "retwistest"
	SecretKey = "retwistest-secret-key"
	Region    = "us-east-1"
)

// startTimeout bounds the wait for a server to answer.
const startTimeout = 60 * time.Second

// Bucket is where a test keeps its objects: a server's endpoint, its
// credentials and a bucket name no other test of the run uses (not
// created: the store under test creates it).
type Bucket struct {
	Endpoint  string // host:port, plain http
	AccessKey string
	SecretKey string
	Region    string
	Name      string
}

// Server is a running weed process.
type Server struct {
	endpoint string
	dir      string
	cmd      *exec.Cmd
	exited   chan struct{}
	grpc     []int
	stop     sync.Once
}

// shared is the server the tests of a package share.
var shared struct {
	once    sync.Once
	running atomic.Bool // Run is running the tests
	server  *Server
	err     error
}

// Start returns a fresh bucket on the server the package's tests share,
// started on first use; the package's TestMain must call Run, which
// stops it.
func Start(t testing.TB) Bucket {
	t.Helper()
	if !shared.running.Load() {
		t.Fatal("s3test: Start needs the package's TestMain to be os.Exit(s3test.Run(m))")
	}
	shared.once.Do(func() { shared.server, shared.err = start() })
	if shared.err != nil {
		t.Fatal(shared.err)
	}
	return shared.server.Bucket(t)
}

// Run runs the tests of m, then stops the shared server, and returns the
// exit code for os.Exit.
func Run(m *testing.M) int {
	shared.running.Store(true)
	code := m.Run()
	if shared.server != nil {
		shared.server.Stop()
	}
	return code
}

// NewServer starts a server of t's own, stopped when t ends.
func NewServer(t testing.TB) *Server {
	t.Helper()
	s, err := start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Stop)
	return s
}

// bucketSeq makes bucket names unique within a run.
var bucketSeq atomic.Int64

// notBucketChars are the runes a bucket's name may not have.
var notBucketChars = regexp.MustCompile(`[^a-z0-9]+`)

// Bucket returns a fresh bucket name on s for t, derived from t's name.
func (s *Server) Bucket(t testing.TB) Bucket {
	name := strings.Trim(notBucketChars.ReplaceAllString(strings.ToLower(t.Name()), "-"), "-")
	name = "t-" + name[:min(len(name), 40)] + "-" + strconv.FormatInt(bucketSeq.Add(1), 10)
	return Bucket{Endpoint: s.endpoint, AccessKey: AccessKey, SecretKey: SecretKey, Region: Region, Name: name}
}

// Stop kills the server (its data is thrown away, so there is nothing to
// shut down cleanly) and removes its files.
func (s *Server) Stop() {
	s.stop.Do(func() {
		s.cmd.Process.Kill()
		<-s.exited
		os.RemoveAll(s.dir)
		for _, p := range s.grpc {
			for _, kind := range []string{"master", "volume", "filer", "s3", "admin"} {
				os.Remove(fmt.Sprintf("/tmp/seaweedfs-%s-grpc-%d.sock", kind, p))
			}
		}
	})
}

// Binary is the path of the weed binary, or an error saying how to get
// one.
func Binary() (string, error) {
	return binary(strings.Split(build.Default.GOPATH, string(os.PathListSeparator))[0])
}

// binary is Binary with the GOPATH whose bin folder it looks in last.
func binary(gopath string) (string, error) {
	if p := os.Getenv(EnvWeed); p != "" {
		return p, nil
	}
	if p, err := exec.LookPath("weed"); err == nil {
		return p, nil
	}
	p := filepath.Join(gopath, "bin", "weed")
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Errorf("s3test: no SeaweedFS weed binary (%s unset, none on the PATH, none at %s): "+
			"run `sh scripts/s3-server.sh` (make test does)", EnvWeed, p)
	}
	return p, nil
}

// config is the S3 gateway's identities: one, allowed everything.
const config = `{"identities":[{"name":"retwis","credentials":[{"accessKey":"` + AccessKey +
	`","secretKey":"` + SecretKey + `"}],"actions":["Admin","Read","Write","List","Tagging"]}]}`

// attempts is how many times start tries: a free port that the kernel
// hands to another process before weed binds it makes weed exit.
const attempts = 3

// start starts a weed server in a directory of its own and waits until
// its S3 gateway answers.
func start() (*Server, error) {
	bin, err := Binary()
	if err != nil {
		return nil, err
	}
	for try := 1; ; try++ {
		s, err := startIn(bin)
		if !errors.Is(err, errExited) || try == attempts {
			return s, err
		}
	}
}

// startIn starts the weed at bin in a new directory.
func startIn(bin string) (*Server, error) {
	dir, err := os.MkdirTemp("", "s3t")
	if err != nil {
		return nil, fmt.Errorf("s3test: %w", err)
	}
	s, err := launch(bin, dir)
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	if err := s.wait(); err != nil {
		s.Stop()
		return nil, err
	}
	return s, nil
}

// launch starts weed in dir on free ports.
func launch(bin, dir string) (*Server, error) {
	ports, err := freePorts(10)
	if err != nil {
		return nil, fmt.Errorf("s3test: free ports: %w", err)
	}
	cfg := filepath.Join(dir, "s3.json")
	if err := os.WriteFile(cfg, []byte(config), 0o600); err != nil {
		return nil, fmt.Errorf("s3test: %w", err)
	}
	data := filepath.Join(dir, "data")
	if err := os.Mkdir(data, 0o700); err != nil {
		return nil, fmt.Errorf("s3test: %w", err)
	}
	log, err := os.Create(filepath.Join(dir, "weed.log"))
	if err != nil {
		return nil, fmt.Errorf("s3test: %w", err)
	}
	defer log.Close()
	cmd := exec.Command(bin, args(dir, data, cfg, ports)...)
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("s3test: start %s: %w", bin, err)
	}
	s := &Server{endpoint: "127.0.0.1:" + strconv.Itoa(ports[3]), dir: dir, cmd: cmd,
		exited: make(chan struct{}), grpc: ports[5:]}
	go func() { cmd.Wait(); close(s.exited) }()
	return s, nil
}

// args are weed's arguments: `weed mini`, a master, a volume server, a
// filer and the S3 gateway in one process (and an admin server, which
// cannot be left out), on ports (HTTP of each, then gRPC of each), with
// no other listener (no WebDAV, Iceberg or Lance, no admin UI, no
// telemetry). Unlike `weed server`, mini lets its master allocate
// volumes as soon as its volume server reports, so that the gateway
// takes writes once it answers.
func args(dir, data, cfg string, ports []int) []string {
	p := func(i int) string { return strconv.Itoa(ports[i]) }
	return []string{"mini",
		"-dir=" + data, "-ip=127.0.0.1", "-ip.bind=127.0.0.1",
		"-master.port=" + p(0), "-volume.port=" + p(1), "-filer.port=" + p(2), "-s3.port=" + p(3), "-admin.port=" + p(4),
		"-master.port.grpc=" + p(5), "-volume.port.grpc=" + p(6), "-filer.port.grpc=" + p(7), "-s3.port.grpc=" + p(8),
		"-admin.port.grpc=" + p(9), "-admin.port.legacy=0", "-admin.ui=false", "-webdav=false",
		"-master.telemetry=false", "-s3.config=" + cfg, "-s3.port.iceberg=0", "-s3.port.lance=0",
		"-filer.localSocket=" + filepath.Join(dir, "filer.sock"), "-s3.localSocket=" + filepath.Join(dir, "s3.sock"),
	}
}

// freePorts returns n ports of 127.0.0.1 that were free a moment ago,
// each below 55536 (weed adds 10000 to some).
func freePorts(n int) ([]int, error) {
	var ports []int
	for len(ports) < n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		defer l.Close()
		if p := l.Addr().(*net.TCPAddr).Port; p < 55536 {
			ports = append(ports, p)
		}
	}
	return ports, nil
}

// errExited is the error of a server that exited before it answered.
var errExited = errors.New("s3test: weed exited before answering")

// wait polls the S3 gateway until it answers an unsigned request (with
// 403: the server checks signatures) or the server exits or the time is
// up.
func (s *Server) wait() error {
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		if status(ctx, "http://"+s.endpoint+"/") == http.StatusForbidden {
			return nil
		}
		select {
		case <-s.exited:
			return fmt.Errorf("%w: %s", errExited, s.logTail())
		case <-ctx.Done():
			return fmt.Errorf("s3test: weed did not answer within %v: %s", startTimeout, s.logTail())
		case <-tick.C:
		}
	}
}

// status is the status code of a GET of url, or 0 without an answer.
func status(ctx context.Context, url string) int {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0
	}
	resp.Body.Close()
	return resp.StatusCode
}

// logTail is the end of the server's log, for an error.
func (s *Server) logTail() string {
	b, err := os.ReadFile(filepath.Join(s.dir, "weed.log"))
	if err != nil {
		return err.Error()
	}
	if len(b) > 2000 {
		b = b[len(b)-2000:]
	}
	return string(b)
}
