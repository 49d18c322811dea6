package push

import (
	"crypto/ecdh"
	"crypto/rand"
	"encoding/base64"
	"net/url"
	"slices"
	"testing"
)

// FuzzCheck: whatever an app sends as a subscription, check accepts it
// only with an https endpoint, a P-256 point of 65 bytes and a secret of
// 16, both written back as base64url, a known policy and the known
// alerts alone; and what it accepted it accepts again unchanged.
func FuzzCheck(f *testing.F) {
	k, err := ecdh.P256().GenerateKey(rand.Reader)
	if err != nil {
		f.Fatal(err)
	}
	point := base64.RawURLEncoding.EncodeToString(k.PublicKey().Bytes())
	if sub := (Subscription{Endpoint: "https://push.example/x", P256dh: point, Auth: "BTBZMqHH6r4Tts7J_aSIgg"}); (&Store{}).check(&sub) != nil {
		f.Fatal("the seed subscription is refused") // else the fuzzing never reaches what it checks
	}
	f.Add("https://push.example/x", point, "BTBZMqHH6r4Tts7J_aSIgg", "all", "mention")
	f.Add("http://push.example/x", point, "BTBZMqHH6r4Tts7J_aSIgg==", "followed", "follow")
	f.Add("https://user:pw@push.example/", "AAAA", "short", "none", "nonsense")
	f.Add("", "", "", "", "")
	s := &Store{}
	f.Fuzz(func(t *testing.T, endpoint, p256dh, auth, policy, alert string) {
		sub := Subscription{Endpoint: endpoint, P256dh: p256dh, Auth: auth, Policy: policy, Alerts: map[string]bool{alert: true}}
		if s.check(&sub) != nil {
			return
		}
		u, err := url.Parse(sub.Endpoint)
		key, kerr := base64.RawURLEncoding.DecodeString(sub.P256dh)
		secret, serr := base64.RawURLEncoding.DecodeString(sub.Auth)
		switch {
		case err != nil || u.Scheme != "https" || u.Host == "" || u.User != nil:
			t.Fatalf("endpoint %q accepted", endpoint)
		case kerr != nil || len(key) != 65 || serr != nil || len(secret) != 16:
			t.Fatalf("keys %q, %q accepted as %q, %q", p256dh, auth, sub.P256dh, sub.Auth)
		case !slices.Contains(Policies, sub.Policy):
			t.Fatalf("policy %q accepted as %q", policy, sub.Policy)
		}
		for a := range sub.Alerts {
			if !slices.Contains(Alerts, a) {
				t.Fatalf("alert %q kept", a)
			}
		}
		again := sub
		if s.check(&again) != nil || again.P256dh != sub.P256dh || again.Auth != sub.Auth || again.Policy != sub.Policy {
			t.Fatalf("accepted %+v, then %+v", sub, again)
		}
	})
}
