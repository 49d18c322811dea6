package store_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/store/accounts"
)

// TestDeviceCookies: a device cookie is recognized for the accounts it
// logged in to and no other, a forged or altered one for none; a device
// remembering another account keeps its id and names the newest
// MaxDeviceAccounts; deleting the key forgets every device.
func TestDeviceCookies(t *testing.T) {
	t.Parallel()
	onRedisAndCluster(t, func(t *testing.T, f *fixture) {
		owner, other := f.Register(t, "owner"), f.Register(t, "other")
		cookie, err := f.St.RememberDevice(f.Ctx, "", owner.ID)
		if err != nil {
			t.Fatal(err)
		}
		d, ok := f.St.RecognizeDevice(f.Ctx, cookie, "OWNER")
		if !ok || d.UID != owner.ID || d.ID == "" {
			t.Fatalf("the owner's device: %+v, %v; want it known for the owner", d, ok)
		}
		id, _, _ := strings.Cut(cookie, ".")
		for name, value := range map[string]string{
			"another account":      cookie,
			"another account's id": strings.Replace(cookie, fmt.Sprint(".", owner.ID, "."), fmt.Sprint(".", other.ID, "."), 1),
			"another device's id":  "x" + cookie[1:],
			"no MAC":               id + "." + fmt.Sprint(owner.ID),
		} {
			if d, ok := f.St.RecognizeDevice(f.Ctx, value, "other"); ok {
				t.Errorf("%s: %+v known for other", name, d)
			}
		}
		for i := range accounts.MaxDeviceAccounts {
			u := f.Register(t, fmt.Sprint("user", i))
			if cookie, err = f.St.RememberDevice(f.Ctx, cookie, u.ID); err != nil {
				t.Fatal(err)
			}
		}
		if d, ok := f.St.RecognizeDevice(f.Ctx, cookie, "user0"); !ok || !strings.HasPrefix(cookie, d.ID+".") || d.ID != id {
			t.Errorf("after more logins the device is %+v (%v), cookie %q; want the same id %q", d, ok, cookie, id)
		}
		if _, ok := f.St.RecognizeDevice(f.Ctx, cookie, "owner"); ok {
			t.Errorf("the oldest of %d accounts is still named", accounts.MaxDeviceAccounts+1)
		}
		f.Do(t, "DEL", "device_key")
		if _, ok := f.St.RecognizeDevice(f.Ctx, cookie, "user0"); ok {
			t.Error("the device is known after its key was deleted")
		}
	})
}

// TestKnownDeviceNotSlowed: the failed logins that make an account's
// next attempts wait do not hold up a device that logged in to it
// before, whose wrong passwords are still refused (and noted).
func TestKnownDeviceNotSlowed(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	owner := f.Register(t, "owner")
	cookie, err := f.St.RememberDevice(f.Ctx, "", owner.ID)
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if _, _, err := f.St.Login(f.Ctx, "owner", "wrong-password"); retwis.ErrorKind(err) != retwis.Unauthorized {
			t.Fatalf("a wrong password: %v", err)
		}
	}
	if _, _, err := f.St.Login(f.Ctx, "owner", "password1"); retwis.ErrorKind(err) != retwis.TooMany {
		t.Fatalf("an unknown client after three failures: %v; want TooMany", err)
	}
	d, ok := f.St.RecognizeDevice(f.Ctx, cookie, "owner")
	if !ok {
		t.Fatal("the owner's device is not recognized")
	}
	known := accounts.WithDevice(f.Ctx, accounts.Device{Known: d})
	if _, _, err := f.St.Login(known, "owner", "wrong-password"); retwis.ErrorKind(err) != retwis.Unauthorized {
		t.Fatalf("a wrong password from the known device: %v; want Unauthorized", err)
	}
	if u, _, err := f.St.Login(known, "owner", "password1"); err != nil || u.ID != owner.ID {
		t.Fatalf("the owner on their device: %v, %v; want in", u, err)
	}
	if n, _, err := f.St.LoginNotice(f.Ctx, owner.ID); err != nil || n != 4 {
		t.Errorf("notice: %d failures, %v; want 4", n, err)
	}
}
