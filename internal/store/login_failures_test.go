package store_test

import (
	"errors"
	"testing"
	"time"

	"github.com/retwis/retwis"
)

// TestLoginSlowsDown: past three failed logins, an account's next
// attempt waits a growing delay (refused with TooMany before the
// password is checked, even the right one), never a lock-out; the
// owner's next login moves the failures to their notice, read once.
func TestLoginSlowsDown(t *testing.T) {
	t.Parallel()
	onRedisAndCluster(t, func(t *testing.T, f *fixture) {
		u := f.Register(t, "owner")
		for range 3 {
			if _, _, err := f.St.Login(f.Ctx, "owner", "wrong-password"); retwis.ErrorKind(err) != retwis.Unauthorized {
				t.Fatalf("a wrong password: %v", err)
			}
		}
		_, _, err := f.St.Login(f.Ctx, "owner", "password1")
		limited, ok := errors.AsType[*retwis.Limited](err)
		if retwis.ErrorKind(err) != retwis.TooMany || !ok || limited.Quota.RetryAfter <= 0 || limited.Quota.RetryAfter > time.Second {
			t.Fatalf("right after three failures: %v; want a wait of up to a second", err)
		}
		time.Sleep(limited.Quota.RetryAfter + 10*time.Millisecond) // the delay, on the wall clock, must pass
		if _, _, err := f.St.Login(f.Ctx, "owner", "password1"); err != nil {
			t.Fatalf("after the wait, the owner logs in: %v", err)
		}
		n, last, err := f.St.LoginNotice(f.Ctx, u.ID)
		if err != nil || n != 3 || time.Since(last) > 10*time.Second {
			t.Fatalf("notice = %d failures, the last at %v, %v; want 3, just now", n, last, err)
		}
		if n, _, err := f.St.LoginNotice(f.Ctx, u.ID); err != nil || n != 0 {
			t.Errorf("the notice again: %d, %v; want it read once", n, err)
		}
		if _, _, err := f.St.Login(f.Ctx, "owner", "wrong-password"); retwis.ErrorKind(err) != retwis.Unauthorized {
			t.Errorf("after a login the count starts again: %v", err)
		}
	})
}
