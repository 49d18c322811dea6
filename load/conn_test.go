package load

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
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
	"github.com/retwis/retwis/internal/resp"
	"github.com/retwis/retwis/internal/testkit/redistest"
)

// TestLoadLogin loads through URLs that need AUTH (a password, or an ACL
// user and password) and SELECT: their replies must not be counted, and
// the data must land in the database named.
func TestLoadLogin(t *testing.T) {
	t.Parallel()
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
			rep, _, err := loadInput(t, resp.Commands([]string{"SET", "k", tc.name}), Options{URL: target})
			if got := summary(rep, err); !strings.Contains(got, tc.want) || (err == nil) != strings.Contains(tc.want, "errors: 0") {
				t.Fatalf("%s; want %q", got, tc.want)
			}
			if err != nil {
				return
			}
			c := newTestClient(t, withLogin(t, redis.URL, "", "secret", tc.db))
			if v, _ := get(t, c, "k"); v != tc.name {
				t.Fatalf("k = %q in database %d", v, tc.db)
			}
		})
	}
}

// summary gives the counts of a load and its error, for comparing with
// what a test expects.
func summary(rep Report, err error) string {
	return fmt.Sprintf("errors: %d, replies: %d; %v", rep.Errors, rep.Replies, err)
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
	t.Parallel()
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
	input := resp.Commands([]string{"SET", "k", "over TLS"})
	base := "rediss://127.0.0.1:" + strconv.Itoa(secure)

	if _, _, err := loadInput(t, input, Options{URL: base}); err == nil || !strings.Contains(err.Error(), "TLS: tls: failed to verify certificate") {
		t.Fatalf("a self-signed certificate was accepted: %v", err)
	}
	if rep, _, err := loadInput(t, input, Options{URL: base + "?skip_verify=true"}); err != nil || rep.Replies != 1 || rep.Errors != 0 {
		t.Fatalf("%s", summary(rep, err))
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
