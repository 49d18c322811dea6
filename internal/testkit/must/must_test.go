package must_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/retwis/retwis/internal/testkit/must"
)

// recorder is a testing.TB that records a Fatal instead of ending the
// test, so that the test can check what must does on an error.
type recorder struct {
	testing.TB
	fatal string
}

func (r *recorder) Helper() {}

func (r *recorder) Fatal(args ...any) {
	for _, a := range args {
		r.fatal += a.(error).Error()
	}
}

// TestValue: Value passes the value through when there is no error and
// fails the test with the error when there is one.
func TestValue(t *testing.T) {
	t.Parallel()
	r := &recorder{TB: t}
	if got := must.Value(42, nil)(r); got != 42 || r.fatal != "" {
		t.Fatalf("Value(42, nil) = %d, fatal %q", got, r.fatal)
	}
	must.Value(0, errors.New("no such user"))(r)
	if !strings.Contains(r.fatal, "no such user") {
		t.Fatalf("Value with an error: fatal %q; want the error", r.fatal)
	}
}

// TestOK: OK fails the test with the error, and only when there is one.
func TestOK(t *testing.T) {
	t.Parallel()
	r := &recorder{TB: t}
	must.OK(r, nil)
	if r.fatal != "" {
		t.Fatalf("OK(nil): fatal %q", r.fatal)
	}
	must.OK(r, errors.New("redis is away"))
	if r.fatal != "redis is away" {
		t.Fatalf("OK with an error: fatal %q; want the error", r.fatal)
	}
}
