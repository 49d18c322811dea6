package push_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/mattn/go-mastodon"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/push"
	"github.com/retwis/retwis/internal/safehttp"
	pushstore "github.com/retwis/retwis/internal/store/push"
	"github.com/retwis/retwis/internal/store/schema"
	"github.com/retwis/retwis/internal/testkit/npmtest"
	"github.com/retwis/retwis/internal/testkit/redistest"
	"github.com/retwis/retwis/internal/testkit/servertest"
	"github.com/retwis/retwis/internal/testkit/storetest"
)

var cluster redistest.SharedCluster

func TestMain(m *testing.M) {
	code := cluster.Run(m)
	npmtest.Cleanup()
	os.Exit(code)
}

// pushed is a request the push receiver got.
type pushed struct {
	path   string
	header http.Header
	body   []byte
}

// receiver is a push service on this machine, over TLS as push services
// are: it keeps what it gets and answers with status, but 503 to the
// next unavailable requests.
type receiver struct {
	srv         *httptest.Server
	got         chan pushed
	status      atomic.Int32
	unavailable atomic.Int32
}

func newReceiver(t testing.TB) *receiver {
	rec := &receiver{got: make(chan pushed, 16)}
	rec.status.Store(http.StatusCreated)
	rec.srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		status := int(rec.status.Load())
		if rec.unavailable.Add(-1) >= 0 {
			status = http.StatusServiceUnavailable
		}
		rec.got <- pushed{r.URL.Path, r.Header.Clone(), body}
		w.WriteHeader(status)
	}))
	t.Cleanup(rec.srv.Close)
	return rec
}

// next returns the next push the receiver gets.
func (rec *receiver) next(t testing.TB) pushed {
	t.Helper()
	select {
	case p := <-rec.got:
		return p
	case <-time.After(15 * time.Second):
		t.Fatal("no push came")
	}
	return pushed{}
}

// none checks that the receiver got nothing (call after drainPushes).
func (rec *receiver) none(t *testing.T) {
	t.Helper()
	select {
	case p := <-rec.got:
		t.Fatalf("a push came that should not have: %s", p.path)
	default:
	}
}

// device is a user agent's side of a subscription: its key pair and
// authentication secret.
type device struct {
	key  *ecdsa.PrivateKey
	auth []byte
}

func newDevice(t testing.TB) device {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	auth := make([]byte, 16)
	rand.Read(auth)
	return device{key, auth}
}

// payload is Mastodon's push payload, decoded strictly.
type payload struct {
	AccessToken      string `json:"access_token"`
	PreferredLocale  string `json:"preferred_locale"`
	NotificationID   string `json:"notification_id"`
	NotificationType string `json:"notification_type"`
	Title            string `json:"title"`
	Body             string `json:"body"`
	Icon             string `json:"icon"`
}

// decrypt decrypts p as the device does, with Node.js's http_ece (the
// reference implementation of RFC 8188 and 8291), and decodes it.
func (d device) decrypt(t *testing.T, p pushed) payload {
	t.Helper()
	if p.header.Get("Content-Encoding") != "aes128gcm" {
		t.Fatalf("Content-Encoding %q, want aes128gcm", p.header.Get("Content-Encoding"))
	}
	priv, err := d.key.ECDH()
	if err != nil {
		t.Fatal(err)
	}
	in, _ := json.Marshal(map[string]string{"privateKey": base64.RawURLEncoding.EncodeToString(priv.Bytes()),
		"authSecret": base64.RawURLEncoding.EncodeToString(d.auth), "body": base64.RawURLEncoding.EncodeToString(p.body)})
	dir := npmtest.Install(t, "testdata/ece")
	cmd := exec.Command("node", filepath.Join(dir, "decrypt.js"))
	cmd.Dir, cmd.Stdin = dir, strings.NewReader(string(in))
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("decrypting the push: %v", err)
	}
	var pl payload
	dec := json.NewDecoder(strings.NewReader(string(out)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&pl); err != nil {
		t.Fatalf("the push's payload %s: %v", out, err)
	}
	return pl
}

// checkVAPID checks p's VAPID authorization (RFC 8292): a JWT signed with
// ES256 by the key whose public half is serverKey, for the receiver's
// origin, with the subject the worker was given, not expired.
func checkVAPID(t *testing.T, p pushed, serverKey, origin string) {
	t.Helper()
	auth := p.header.Get("Authorization")
	var token, k string
	for _, part := range strings.Split(strings.TrimPrefix(auth, "vapid "), ",") {
		name, v, _ := strings.Cut(strings.TrimSpace(part), "=")
		switch name {
		case "t":
			token = v
		case "k":
			k = v
		}
	}
	if k != serverKey {
		t.Errorf("VAPID k=%q, want the server key %q", k, serverKey)
	}
	raw, err := base64.RawURLEncoding.DecodeString(serverKey)
	if err != nil {
		t.Fatal(err)
	}
	x, y := elliptic.Unmarshal(elliptic.P256(), raw)
	if x == nil {
		t.Fatalf("the server key is no P-256 point")
	}
	pub := &ecdsa.PublicKey{Curve: elliptic.P256(), X: x, Y: y}
	parsed, err := jwt.Parse(token, func(*jwt.Token) (any, error) { return pub, nil },
		jwt.WithValidMethods([]string{"ES256"}), jwt.WithAudience(origin), jwt.WithExpirationRequired())
	if err != nil {
		t.Fatalf("VAPID JWT %q: %v", token, err)
	}
	if sub, _ := parsed.Claims.GetSubject(); sub != "mailto:ops@example.com" {
		t.Errorf("VAPID subject %q", sub)
	}
}

// env is a server with a push worker whose client reaches the receiver.
type env struct {
	*servertest.Server
	rec *receiver
}

func start(t testing.TB, redisURL string) env {
	srv := servertest.Start(t, redisURL, servertest.Options{})
	rec := newReceiver(t)
	client := safehttp.Client(safehttp.Options{AllowPrivate: true})
	client.Transport.(*http.Transport).TLSClientConfig = rec.srv.Client().Transport.(*http.Transport).TLSClientConfig
	w := push.New(srv.Store, pushstore.New(srv.Store, pushstore.Options{}), push.Options{Consumer: "test",
		Subject: "ops@example.com", Origin: srv.URL, Client: client, TTL: time.Minute})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); w.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	return env{srv, rec}
}

// drainPushes waits until the delivery jobs, then the push jobs, are
// done: every push that will be sent was.
func (e env) drainPushes(t *testing.T) {
	t.Helper()
	e.Drain()
	deadline := time.Now().Add(15 * time.Second)
	for _, stream := range push.Streams() {
		for {
			n, err := e.Store.C.Do(t.Context(), e.Store.C.B().Xlen().Key(stream).Build()).AsInt64()
			if err == nil && n == 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("push jobs left on %s: %d (%v)", stream, n, err)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
}

func on(b bool) *mastodon.Sbool { s := mastodon.Sbool(b); return &s }

// subscribe subscribes token's user through go-mastodon, as an app does.
func (e env) subscribe(t testing.TB, token string, d device, alerts mastodon.PushAlerts) *mastodon.PushSubscription {
	t.Helper()
	c := e.Mastodon(&mastodon.Config{AccessToken: token})
	sub, err := c.AddPushSubscription(t.Context(), e.rec.srv.URL+"/push/"+token[:4], d.key.PublicKey, d.auth, alerts)
	if err != nil {
		t.Fatal(err)
	}
	return sub
}

// TestPushDelivered: a user subscribed through the API is pushed the
// notifications its alerts ask for, encrypted for its device and signed
// with the key the instance serves, with Mastodon's payload; those it
// does not ask for are not pushed.
func TestPushDelivered(t *testing.T) {
	t.Parallel()
	for _, db := range storetest.Databases(&cluster) {
		t.Run(db.Name, func(t *testing.T) {
			t.Parallel()
			e := start(t, db.URL(t))
			alice, aliceTok := e.User("alice", "read", "write", "push")
			bob, bobTok := e.User("bob")
			d := newDevice(t)
			sub := e.subscribe(t, aliceTok, d, mastodon.PushAlerts{Follow: on(true), Mention: on(true), Favourite: on(false)})
			var inst struct {
				Configuration struct {
					Vapid struct {
						PublicKey string `json:"public_key"`
					}
				}
			}
			e.Call("GET", "/api/v2/instance", "", nil).Decode(t, &inst)
			if sub.ServerKey == "" || sub.ServerKey != inst.Configuration.Vapid.PublicKey {
				t.Fatalf("server_key %q, instance's vapid key %q", sub.ServerKey, inst.Configuration.Vapid.PublicKey)
			}

			if r := e.Call("POST", "/api/v1/accounts/"+id(alice.ID)+"/follow", bobTok, nil); r.Status != http.StatusOK {
				t.Fatalf("follow: %d %s", r.Status, r.Body)
			}
			p := e.rec.next(t)
			checkVAPID(t, p, sub.ServerKey, e.rec.srv.URL)
			if ttl := p.header.Get("TTL"); ttl != "60" {
				t.Errorf("TTL %q", ttl)
			}
			got := d.decrypt(t, p)
			var notes []struct{ ID string }
			e.Call("GET", "/api/v1/notifications", aliceTok, nil).Decode(t, &notes)
			want := payload{AccessToken: aliceTok, PreferredLocale: "en", NotificationID: notes[0].ID, NotificationType: "follow",
				Title: "@bob is now following you", Body: "@bob", Icon: e.URL + retwis.AvatarPath(bob.ID)}
			if got != want {
				t.Errorf("follow push %+v, want %+v", got, want)
			}

			pid := e.Post(aliceTok, "a post to favourite")
			e.Call("POST", "/api/v1/statuses/"+pid+"/favourite", bobTok, nil)
			e.drainPushes(t)
			e.rec.none(t) // favourites not asked for

			e.Post(bobTok, "hello @alice, how are you")
			got = d.decrypt(t, e.rec.next(t))
			if got.NotificationType != "mention" || got.Title != "You were mentioned by @bob" || got.Body != "hello @alice, how are you" {
				t.Errorf("mention push %+v", got)
			}
		})
	}
}

func id(n int64) string { return strconv.FormatInt(n, 10) }

// TestPushGone: a push service that answers 410 has lost the
// subscription, which is removed; revoking a token removes its own, and
// suspending an account all of its.
func TestPushGone(t *testing.T) {
	t.Parallel()
	e := start(t, redistest.Start(t).URL)
	alice, aliceTok := e.User("alice", "read", "write", "push")
	_, aliceTok2 := e.User("alice2", "read", "push")
	_, bobTok := e.User("bob")
	e.subscribe(t, aliceTok, newDevice(t), mastodon.PushAlerts{Follow: on(true)})
	e.subscribe(t, aliceTok2, newDevice(t), mastodon.PushAlerts{Follow: on(true)})
	e.rec.status.Store(http.StatusGone)
	e.Call("POST", "/api/v1/accounts/"+id(alice.ID)+"/follow", bobTok, nil)
	e.rec.next(t)
	e.drainPushes(t)
	c := e.Mastodon(&mastodon.Config{AccessToken: aliceTok})
	if _, err := c.GetPushSubscription(t.Context()); err == nil || !strings.Contains(err.Error(), "404") {
		t.Errorf("after a 410, the subscription: %v, want 404", err)
	}

	u2, err := e.Store.UserByName(t.Context(), "alice2")
	if err != nil {
		t.Fatal(err)
	}
	tokens, err := e.Store.Tokens(t.Context(), u2.ID)
	if err != nil || len(tokens) != 1 {
		t.Fatalf("tokens %v %v", tokens, err)
	}
	if err := e.Store.RevokeToken(t.Context(), u2.ID, tokens[0].ID); err != nil {
		t.Fatal(err)
	}
	if n := redistest.Do(t, e.Store.C, "HLEN", schema.PushSubscriptions(u2.ID)); n != "0" {
		t.Errorf("after the token's revocation, %v subscriptions", n)
	}

	carol, carolTok := e.User("carol", "read", "push")
	e.subscribe(t, carolTok, newDevice(t), mastodon.PushAlerts{Follow: on(true)})
	if err := e.Store.Suspend(t.Context(), "cli:test", carol.ID, "spam"); err != nil {
		t.Fatal(err)
	}
	if n := redistest.Do(t, e.Store.C, "HLEN", schema.PushSubscriptions(carol.ID)); n != "0" {
		t.Errorf("after the account's suspension, %v subscriptions", n)
	}
}

// TestPushRetried: a push the push service answers 503 to is sent again
// (with backoff) until it is taken.
func TestPushRetried(t *testing.T) {
	t.Parallel()
	e := start(t, redistest.Start(t).URL)
	alice, aliceTok := e.User("alice", "read", "push")
	_, bobTok := e.User("bob")
	d := newDevice(t)
	e.subscribe(t, aliceTok, d, mastodon.PushAlerts{Follow: on(true)})
	e.rec.unavailable.Store(1)
	e.Call("POST", "/api/v1/accounts/"+id(alice.ID)+"/follow", bobTok, nil)
	first := d.decrypt(t, e.rec.next(t))
	if again := d.decrypt(t, e.rec.next(t)); again != first {
		t.Errorf("sent again %+v, first %+v", again, first)
	}
	e.drainPushes(t)
	e.rec.none(t) // taken: not sent a third time
}

// TestPushPolicy: a subscription whose policy is "followed" is pushed the
// notifications of the accounts its user follows only; PUT changes its
// alerts, which GET shows.
func TestPushPolicy(t *testing.T) {
	t.Parallel()
	e := start(t, redistest.Start(t).URL)
	_, aliceTok := e.User("alice", "read", "write", "follow", "push")
	_, bobTok := e.User("bob")
	carol, carolTok := e.User("carol")
	d := newDevice(t)
	r := e.Call("POST", "/api/v1/push/subscription", aliceTok, url.Values{
		"subscription[endpoint]": {e.rec.srv.URL + "/push/alice"}, "subscription[keys][auth]": {base64.RawURLEncoding.EncodeToString(d.auth)},
		"subscription[keys][p256dh]": {p256dh(t, d)}, "data[alerts][mention]": {"true"}, "data[policy]": {"followed"}})
	var sub pushEntity
	r.Decode(t, &sub)
	if r.Status != http.StatusOK || sub.Policy != "followed" || !sub.Alerts["mention"] || sub.Alerts["follow"] || !sub.Standard {
		t.Fatalf("subscribe: %d %s", r.Status, r.Body)
	}
	e.Call("POST", "/api/v1/accounts/"+id(carol.ID)+"/follow", aliceTok, nil)
	e.Post(bobTok, "@alice from a stranger")
	e.drainPushes(t)
	e.rec.none(t)
	e.Post(carolTok, "@alice from a friend")
	if got := d.decrypt(t, e.rec.next(t)); got.Body != "@alice from a friend" {
		t.Errorf("pushed %+v", got)
	}

	c := e.Mastodon(&mastodon.Config{AccessToken: aliceTok})
	if _, err := c.UpdatePushSubscription(t.Context(), &mastodon.PushAlerts{Follow: on(true)}); err != nil {
		t.Fatal(err)
	}
	e.Call("GET", "/api/v1/push/subscription", aliceTok, nil).Decode(t, &sub)
	if !sub.Alerts["follow"] || sub.Alerts["mention"] || sub.Policy != "followed" {
		t.Errorf("after PUT: %+v", sub)
	}
	if err := c.RemovePushSubscription(t.Context()); err != nil {
		t.Fatal(err)
	}
	if r := e.Call("GET", "/api/v1/push/subscription", aliceTok, nil); r.Status != http.StatusNotFound {
		t.Errorf("after DELETE: %d %s", r.Status, r.Body)
	}
}

// pushEntity is the WebPushSubscription entity.
type pushEntity struct {
	ID        string          `json:"id"`
	Endpoint  string          `json:"endpoint"`
	Standard  bool            `json:"standard"`
	Alerts    map[string]bool `json:"alerts"`
	Policy    string          `json:"policy"`
	ServerKey string          `json:"server_key"`
}

func p256dh(t testing.TB, d device) string {
	pk, err := d.key.PublicKey.ECDH()
	if err != nil {
		t.Fatal(err)
	}
	return base64.RawURLEncoding.EncodeToString(pk.Bytes())
}

// TestSubscriptionRefused: what is not a subscription is refused (422),
// and a token without the push scope may not subscribe (403).
func TestSubscriptionRefused(t *testing.T) {
	t.Parallel()
	e := start(t, redistest.Start(t).URL)
	_, tok := e.User("alice", "read", "push")
	_, readTok := e.User("bob", "read", "write")
	d := newDevice(t)
	good := func() url.Values {
		return url.Values{"subscription[endpoint]": {"https://push.example.com/x"}, "subscription[keys][p256dh]": {p256dh(t, d)},
			"subscription[keys][auth]": {base64.RawURLEncoding.EncodeToString(d.auth)}}
	}
	for name, c := range map[string]struct {
		param, value string
	}{
		"http endpoint":     {"subscription[endpoint]", "http://push.example.com/x"},
		"no endpoint":       {"subscription[endpoint]", ""},
		"long endpoint":     {"subscription[endpoint]", "https://push.example.com/" + strings.Repeat("x", pushstore.MaxEndpoint)},
		"not a url":         {"subscription[endpoint]", "https://"},
		"key off the curve": {"subscription[keys][p256dh]", base64.RawURLEncoding.EncodeToString(append([]byte{4}, make([]byte, 64)...))},
		"key not base64":    {"subscription[keys][p256dh]", "!!!"},
		"short auth":        {"subscription[keys][auth]", "AAAA"},
		"unknown policy":    {"data[policy]", "friends"},
	} {
		v := good()
		v.Set(c.param, c.value)
		if r := e.Call("POST", "/api/v1/push/subscription", tok, v); r.Status != http.StatusUnprocessableEntity {
			t.Errorf("%s: %d %s, want 422", name, r.Status, r.Body)
		}
	}
	if r := e.Call("POST", "/api/v1/push/subscription", tok, good()); r.Status != http.StatusOK {
		t.Errorf("a good subscription: %d %s", r.Status, r.Body)
	}
	if r := e.Call("POST", "/api/v1/push/subscription", readTok, good()); r.Status != http.StatusForbidden {
		t.Errorf("without the push scope: %d %s, want 403", r.Status, r.Body)
	}
}
