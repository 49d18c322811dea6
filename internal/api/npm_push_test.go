package api_test

import (
	"testing"
)

// mastoPush is what masto_push.mjs reports of each WebPushSubscription.
type mastoPush struct {
	ID, Endpoint, Policy, ServerKey string
	Alerts                          map[string]bool
}

// TestMastoJSPush: masto.js, the library of Elk and Phanpy, subscribes
// to Web Push (its policy sent beside data, as it sends it), reads the
// subscription back with the instance's VAPID key, changes its alerts
// and removes it (internal/push tests the pushes themselves).
func TestMastoJSPush(t *testing.T) {
	t.Parallel()
	dir := npmPackages(t)
	s := newServer(t)
	_, token := s.User("alice", "read", "push")
	var got struct {
		Created, Fetched, Updated mastoPush
		AfterRemove               int
	}
	runClientScript(t, dir, "masto_push.mjs", syncs{}, &got, "RETWIS_URL="+s.URL, "RETWIS_TOKEN="+token)
	var inst struct {
		Configuration struct {
			Vapid struct {
				PublicKey string `json:"public_key"`
			}
		}
	}
	s.Call("GET", "/api/v2/instance", "", nil).Decode(t, &inst)
	c := got.Created
	if c.ID == "" || c.Endpoint != "https://push.example.com/send/device-1" || c.Policy != "followed" ||
		c.ServerKey == "" || c.ServerKey != inst.Configuration.Vapid.PublicKey ||
		!c.Alerts["mention"] || !c.Alerts["follow"] || c.Alerts["favourite"] || len(c.Alerts) != 10 {
		t.Errorf("created %+v (the instance's key %q)", c, inst.Configuration.Vapid.PublicKey)
	}
	if f := got.Fetched; f.ID != c.ID || f.Policy != c.Policy || f.ServerKey != c.ServerKey || !f.Alerts["mention"] {
		t.Errorf("fetched %+v, created %+v", f, c)
	}
	if u := got.Updated; u.ID != c.ID || !u.Alerts["favourite"] || u.Alerts["mention"] || u.Policy != "followed" {
		t.Errorf("updated %+v", u)
	}
	if got.AfterRemove != 404 {
		t.Errorf("after removal, the subscription reads as %d; want 404", got.AfterRemove)
	}
}
