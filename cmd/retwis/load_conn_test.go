package main

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis/internal/redisserver"
	"github.com/retwis/retwis/internal/redistest"
)

func TestLoadUsage(t *testing.T) {
	redis := redistest.Start(t)
	file := filepath.Join(t.TempDir(), "in.resp")
	os.WriteFile(file, encode([]string{"SET", "k", "v"}), 0o600)
	for _, tc := range []struct {
		name    string
		args    []string
		status  int
		want    string // in stdout or stderr
		notWant string
	}{
		{"flags after the file", []string{file, "--redis", redis.URL}, 0, "errors: 0, replies: 1", ""},
		{"help", []string{"-h"}, 0, "Usage: retwis load [flags] [FILE|-]", ""},
		{"two inputs", []string{"a", "b"}, 2, `one input at most, got ["a" "b"]`, ""},
		{"negative skip", []string{"--skip", "-1", file}, 2, "--skip cannot be negative", ""},
		{"unknown flag", []string{"--nope"}, 2, "flag provided but not defined: -nope", ""},
		{"missing file", []string{"--redis", redis.URL, "/nonexistent.resp"}, 1, "no such file or directory", ""},
		{"bad URL scheme", []string{"--redis", "http://x", file}, 1, "invalid URL scheme: http", ""},
		{"no server", []string{"--redis", "redis://u:hunter2@127.0.0.1:1", file}, 1,
			"connect to redis://u:xxxxx@127.0.0.1:1: dial tcp 127.0.0.1:1: connect: connection refused", "hunter2"},
		{"--cluster on a single server", []string{"--cluster", "--redis", redis.URL, file}, 1,
			"CLUSTER SLOTS: ERR This instance has cluster support disabled", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			status := run(t.Context(), append([]string{"load"}, tc.args...), &out, &out)
			if status != tc.status || !strings.Contains(out.String(), tc.want) ||
				tc.notWant != "" && strings.Contains(out.String(), tc.notWant) {
				t.Fatalf("status %d, output:\n%s\nwant %d and %q", status, out.String(), tc.status, tc.want)
			}
		})
	}
}

// TestLoadStdin reads the commands from standard input, with no file
// argument and with "-".
func TestLoadStdin(t *testing.T) {
	redis := redistest.Start(t)
	for i, args := range [][]string{{"--redis", redis.URL}, {"--redis", redis.URL, "-"}} {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		go func() {
			w.Write(encode([]string{"INCR", "n"}, []string{"INCR", "n"}))
			w.Close()
		}()
		stdin := os.Stdin
		os.Stdin = r
		var out bytes.Buffer
		status := run(t.Context(), append([]string{"load"}, args...), &out, &out)
		os.Stdin = stdin
		r.Close()
		if status != 0 || !strings.Contains(out.String(), "errors: 0, replies: 2") {
			t.Fatalf("%q: status %d, output:\n%s", args, status, out.String())
		}
		if n, _ := get(t, newTestClient(t, redis.URL), "n"); n != strconv.Itoa(2*(i+1)) {
			t.Fatalf("n = %s after %d loads", n, i+1)
		}
	}
}

// TestLoadLogin loads through URLs that need AUTH (a password, or an ACL
// user and password) and SELECT: their replies must not be counted, and
// the data must land in the database named.
func TestLoadLogin(t *testing.T) {
	if os.Getenv(redistest.EnvURL) != "" {
		t.Skip("sets a password on the server")
	}
	redis := redistest.Start(t)
	admin := newTestClient(t, redis.URL)
	ctx := context.Background()
	for _, cmd := range []rueidis.Completed{
		admin.B().AclSetuser().Username("loader").Rule("on", ">pw", "~*", "&*", "+@all").Build(),
		admin.B().ConfigSet().ParameterValue().ParameterValue("requirepass", "secret").Build(),
	} {
		if err := admin.Do(ctx, cmd).Error(); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name, user, pass string
		db               int
		want             string
	}{
		{"password", "", "secret", 3, "errors: 0, replies: 1"},
		{"user and password", "loader", "pw", 5, "errors: 0, replies: 1"},
		{"wrong password", "", "wrong", 0, "AUTH: WRONGPASS invalid username-password pair"},
		{"no password", "", "", 0, "errors: 1, replies: 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			target := withLogin(t, redis.URL, tc.user, tc.pass, tc.db)
			status, stdout, stderr := runLoadCmd(t, encode([]string{"SET", "k", tc.name}), "--redis", target)
			if !strings.Contains(stdout+stderr, tc.want) || (status == 0) != strings.Contains(tc.want, "errors: 0") {
				t.Fatalf("status %d, output:\n%s%s\nwant %q", status, stdout, stderr, tc.want)
			}
			if status != 0 {
				return
			}
			c := newTestClient(t, withLogin(t, redis.URL, "", "secret", tc.db))
			if v, _ := get(t, c, "k"); v != tc.name {
				t.Fatalf("k = %q in database %d", v, tc.db)
			}
		})
	}
}

// withLogin adds a user, password and database to a Redis URL.
func withLogin(t *testing.T, raw, user, pass string, db int) string {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	if pass != "" {
		u.User = url.UserPassword(user, pass)
	}
	if u.Scheme == "unix" {
		u.RawQuery = "db=" + strconv.Itoa(db)
	} else {
		u.Path = "/" + strconv.Itoa(db)
	}
	return u.String()
}

// TestLoadTLS loads into a redis-server that only speaks TLS, through a
// rediss:// URL; the certificate is checked unless the URL says
// skip_verify.
func TestLoadTLS(t *testing.T) {
	dir := t.TempDir()
	cert, key := writeSelfSignedCert(t, dir)
	plain, secure := freePort(t), freePort(t)
	srv, err := redisserver.Start(context.Background(), redisserver.Options{Dir: dir, Port: plain, Args: []string{
		"--tls-port", strconv.Itoa(secure), "--tls-cert-file", cert, "--tls-key-file", key,
		"--tls-ca-cert-file", cert, "--tls-auth-clients", "no",
	}})
	if err != nil {
		t.Fatalf("redis-server with TLS: %v", err)
	}
	t.Cleanup(func() { srv.Stop() })
	input := encode([]string{"SET", "k", "over TLS"})
	base := "rediss://127.0.0.1:" + strconv.Itoa(secure)

	status, _, stderr := runLoadCmd(t, input, "--redis", base)
	if status != 1 || !strings.Contains(stderr, "TLS: tls: failed to verify certificate") {
		t.Fatalf("a self-signed certificate was accepted: status %d, %s", status, stderr)
	}
	status, stdout, stderr := runLoadCmd(t, input, "--redis", base+"?skip_verify=true")
	if status != 0 || stdout != "errors: 0, replies: 1\n" {
		t.Fatalf("status %d, output:\n%s%s", status, stdout, stderr)
	}
	if v, _ := get(t, newTestClient(t, srv.URL()), "k"); v != "over TLS" {
		t.Fatalf("k = %q", v)
	}
}

// writeSelfSignedCert writes a certificate for 127.0.0.1 and its key into
// dir and returns their paths.
func writeSelfSignedCert(t *testing.T, dir string) (certFile, keyFile string) {
	t.Helper()
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "retwis test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, IsCA: true, BasicConstraintsValid: true,
		KeyUsage:    x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &priv.PublicKey, priv)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600)
	os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), 0o600)
	return certFile, keyFile
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}
