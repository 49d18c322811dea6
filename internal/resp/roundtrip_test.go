package resp_test

import (
	"bufio"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/retwis/retwis/internal/resp"
	"github.com/retwis/retwis/internal/testkit/must"
)

// TestRoundTrip sends commands one at a time to a real server: values
// and error replies come back, a timeout bounds a command that takes
// longer, and the deadline is cleared afterwards.
func TestRoundTrip(t *testing.T) {
	t.Parallel()
	conn := dialRedis(t)
	must.OK(t, conn.SetDeadline(time.Time{}))
	r := bufio.NewReader(conn)
	if v, err := resp.RoundTrip(conn, r, time.Second, "SET", "k", "a\r\nb"); err != nil || v != "OK" {
		t.Fatalf("SET = %#v, %v", v, err)
	}
	if v, err := resp.RoundTrip(conn, r, 0, "GET", "k"); err != nil || v != "a\r\nb" {
		t.Fatalf("GET = %#v, %v", v, err)
	}
	if v, err := resp.RoundTrip(conn, r, 0, "GET", "nothing"); err != nil || v != nil {
		t.Fatalf("GET of a missing key = %#v, %v; want nil", v, err)
	}
	if _, err := resp.RoundTrip(conn, r, 0, "LPUSH", "k", "x"); !errors.As(err, new(resp.Error)) {
		t.Fatalf("LPUSH on a string: %v; want a resp.Error", err)
	}
	if _, err := resp.RoundTrip(conn, r, 50*time.Millisecond, "BLPOP", "nothing", "1"); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("a command slower than the timeout: %v; want a deadline error", err)
	}
	// The timed-out connection is out of step; a new one shows that the
	// deadline of a round trip does not outlive it.
	conn = dialRedis(t)
	must.OK(t, conn.SetDeadline(time.Time{}))
	r = bufio.NewReader(conn)
	if _, err := resp.RoundTrip(conn, r, 50*time.Millisecond, "PING"); err != nil {
		t.Fatal(err)
	}
	// BLPOP's reply comes a tenth of a second later, past the PING's
	// 50ms: if that deadline had stayed, it would cut the reply short.
	if v, err := resp.RoundTrip(conn, r, 0, "BLPOP", "nothing", "0.1"); err != nil || v != nil {
		t.Fatalf("BLPOP after the deadline of an earlier round trip = %#v, %v", v, err)
	}
}
