package redisconn_test

import (
	"strings"
	"testing"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/redisconn"
	"github.com/retwis/retwis/internal/testkit/redistest"
)

// TestDialRefused: a server that refuses the client, or a URL that is
// not Redis's, is an Invalid error at once, never taken for an outage.
func TestDialRefused(t *testing.T) {
	t.Parallel()
	r := redistest.Start(t)
	path, ok := strings.CutPrefix(r.URL, "unix://")
	if !ok {
		t.Skip("needs the harness's own server")
	}
	c, err := redisconn.Dial(r.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Do(t.Context(), c.B().ConfigSet().ParameterValue().ParameterValue("requirepass", "right").Build()).Error(); err != nil {
		t.Fatal(err)
	}
	// A wrong password is refused, and waiting would not help, so
	// Dial must say so at once rather than look like an outage.
	_, err = redisconn.Dial("unix://:wrong@" + path)
	if retwis.ErrorKind(err) != retwis.Invalid {
		t.Fatalf("Dial with a wrong password: %v; want an Invalid error", err)
	}
	good, err := redisconn.Dial("unix://:right@" + path)
	if err != nil {
		t.Fatalf("the right password was refused: %v", err)
	}
	good.Close()
	if _, err = redisconn.Dial("http://localhost"); retwis.ErrorKind(err) != retwis.Invalid {
		t.Fatalf("Dial of an http URL: %v; want an Invalid error", err)
	}
}
