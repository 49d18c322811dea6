package streaming_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/mattn/go-mastodon"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/mux"
	"github.com/retwis/retwis/internal/streaming"
	"github.com/retwis/retwis/internal/testkit/must"
	"github.com/retwis/retwis/internal/testkit/redistest"
	"github.com/retwis/retwis/internal/testkit/servertest"
)

// wait is how long a test waits for an event before it fails.
const wait = 10 * time.Second

// server is a retwis server (the pages, the API and its streams, as
// `retwis serve` runs them) on a real Redis, with a delivery worker.
type server struct{ *servertest.Server }

// newServer starts a server on a Redis of its own.
func newServer(t testing.TB) *server {
	return newServerAt(t, redistest.Start(t).URL)
}

// newServerAt starts a server on the Redis (or cluster) at redisURL.
func newServerAt(t testing.TB, redisURL string) *server {
	t.Helper()
	return newServerWith(t, redisURL, streaming.Options{}, nil)
}

// newServerWith starts a server as newServerAt does, with the streams'
// options opts (the store, API, log and session are the server's), its
// HTTP server started by start (if not nil: httptest.NewServer).
func newServerWith(t testing.TB, redisURL string, opts streaming.Options, start func(http.Handler) *httptest.Server) *server {
	t.Helper()
	return &server{servertest.Start(t, redisURL, servertest.Options{Mux: mux.Options{Streaming: opts}, Start: start})}
}

// eventStream is a stream of Server-Sent Events being read: a line at
// a time, as the test asks for them, so that a client that asks for
// none reads no further than its buffer.
type eventStream struct {
	t     *testing.T
	lines chan string // closed at the end of the stream
}

// sseEvent is an event of an eventStream.
type sseEvent struct{ name, data string }

// listen opens the stream at path with token (if any) and the given
// header pairs, and returns it once the server has it subscribed (it
// writes its first comment then).
func (s *server) listen(path, token string, header ...string) *eventStream {
	s.T.Helper()
	return s.listenWith(http.DefaultClient, path, token, header...)
}

// listenWith is listen through client.
func (s *server) listenWith(client *http.Client, path, token string, header ...string) *eventStream {
	s.T.Helper()
	req, err := http.NewRequestWithContext(s.T.Context(), http.MethodGet, s.URL+path, nil)
	if err != nil {
		s.T.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := client.Do(req)
	if err != nil {
		s.T.Fatal(err)
	}
	done := make(chan struct{})
	s.T.Cleanup(func() { close(done); resp.Body.Close() })
	if ct := resp.Header.Get("Content-Type"); resp.StatusCode != http.StatusOK || ct != "text/event-stream" {
		b, _ := io.ReadAll(resp.Body)
		s.T.Fatalf("GET %s: %d %s: %s", path, resp.StatusCode, ct, b)
	}
	es := &eventStream{t: s.T.(*testing.T), lines: make(chan string)}
	go func() {
		defer close(es.lines)
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			select {
			case es.lines <- sc.Text():
			case <-done:
				return
			}
		}
	}()
	if first := es.line(); first != ":)" {
		s.T.Fatalf("GET %s began with %q", path, first)
	}
	return es
}

// line returns the next line of the stream.
func (es *eventStream) line() string {
	es.t.Helper()
	select {
	case l, ok := <-es.lines:
		if !ok {
			es.t.Fatal("the stream ended")
		}
		return l
	case <-time.After(wait):
		es.t.Fatal("nothing came on the stream")
	}
	return ""
}

// next returns the next event, past the comments.
func (es *eventStream) next() sseEvent {
	es.t.Helper()
	var ev sseEvent
	for {
		l := es.line()
		switch {
		case l == "" && ev.name != "":
			return ev
		case strings.HasPrefix(l, "event: "):
			ev.name = strings.TrimPrefix(l, "event: ")
		case strings.HasPrefix(l, "data: "):
			ev.data = strings.TrimPrefix(l, "data: ")
		}
	}
}

// expectEnd waits until the server ends the stream (what the client
// had still buffered is skipped).
func (es *eventStream) expectEnd() {
	es.t.Helper()
	es.expectEndWithin(wait)
}

// expectEndWithin checks that the server ends the stream within d.
func (es *eventStream) expectEndWithin(d time.Duration) {
	es.t.Helper()
	timeout := time.After(d)
	for {
		select {
		case _, ok := <-es.lines:
			if !ok {
				return
			}
		case <-timeout:
			es.t.Fatalf("the server did not end the stream within %v", d)
		}
	}
}

// status is the part of a Status the tests read.
type status struct {
	ID      string
	Content string
	Account struct{ Username string }
	Tags    []struct{ Name string }
}

// notification is the part of a Notification the tests read.
type notification struct {
	ID      string
	Type    string
	Account struct{ Username string }
	Status  *status
}

// decodeInto decodes a payload, failing the test if it is not JSON.
func decodeInto(t *testing.T, data string, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(data), v); err != nil {
		t.Fatalf("payload is not JSON: %v: %s", err, data)
	}
}

// expectUpdate takes the next event and checks it is the update of a
// post whose content has text.
func (es *eventStream) expectUpdate(text string) status {
	es.t.Helper()
	ev := es.next()
	var st status
	if ev.name == "update" {
		decodeInto(es.t, ev.data, &st)
	}
	if !strings.Contains(st.Content, text) || st.ID == "" {
		es.t.Fatalf("event %s %s; want the update of a post with %q", ev.name, ev.data, text)
	}
	return st
}

// expectNotification takes the next event and checks it is a
// notification of kind from actor.
func (es *eventStream) expectNotification(kind, actor string) notification {
	es.t.Helper()
	ev := es.next()
	var n notification
	if ev.name == "notification" {
		decodeInto(es.t, ev.data, &n)
	}
	if n.Type != kind || n.Account.Username != actor || n.ID == "" {
		es.t.Fatalf("event %s %s; want a %s notification from %s", ev.name, ev.data, kind, actor)
	}
	return n
}

// aliceFollowed signs up alice, bob and carol, the two following
// alice, and returns their tokens.
func (s *server) aliceFollowed() (alice, bob, carol string) {
	s.T.Helper()
	a, alice := s.User("alice")
	_, bob = s.User("bob")
	_, carol = s.User("carol")
	s.follow(bob, a.ID)
	s.follow(carol, a.ID)
	s.Drain()
	return alice, bob, carol
}

// follow has the token's user follow uid through the API.
func (s *server) follow(token string, uid int64) {
	s.T.Helper()
	if r := s.Call("POST", "/api/v1/accounts/"+strconv.FormatInt(uid, 10)+"/follow", token, nil); r.Status != http.StatusOK {
		s.T.Fatalf("follow: %d %s", r.Status, r.Body)
	}
}

// TestStreamUserAcrossServers: bob listens to his stream on one server
// while alice posts on another (they share the Redis): the update of
// the post he follows comes, his notifications of a follow and a
// mention, and the deletion.
func TestStreamUserAcrossServers(t *testing.T) {
	t.Parallel()
	one := newServer(t)
	two := newServerAt(t, one.RedisURL)
	alice, aliceToken := one.User("alice")
	bob, bobToken := one.User("bob")
	_, carolToken := one.User("carol")
	one.follow(bobToken, alice.ID)
	one.Drain()
	stream := two.listen("/api/v1/streaming/user", bobToken)

	id := one.Post(aliceToken, "hello from server one")
	if st := stream.expectUpdate("hello from server one"); st.ID != id || st.Account.Username != "alice" {
		t.Fatalf("update %+v; want alice's post %s", st, id)
	}
	one.follow(carolToken, bob.ID)
	stream.expectNotification("follow", "carol")
	one.Post(carolToken, "hi @bob")
	if n := stream.expectNotification("mention", "carol"); n.Status == nil || !strings.Contains(n.Status.Content, "hi") {
		t.Fatalf("mention %+v; want it with its status", n)
	}
	if r := one.Call("DELETE", "/api/v1/statuses/"+id, aliceToken, nil); r.Status != http.StatusOK {
		t.Fatalf("delete: %d %s", r.Status, r.Body)
	}
	if ev := stream.next(); ev.name != "delete" || ev.data != id {
		t.Fatalf("event %+v; want the deletion of %s", ev, id)
	}
}

// TestStreamPublicAndHashtag: anyone may listen to the public stream
// and a tag's (in any case, local or not); each gets the posts it should,
// and the public one the deletions.
func TestStreamPublicAndHashtag(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	_, token := s.User("alice")
	public := s.listen("/api/v1/streaming/public", "")
	local := s.listen("/api/v1/streaming/public/local", "")
	tag := s.listen("/api/v1/streaming/hashtag?tag=Go", "")
	tagLocal := s.listen("/api/v1/streaming/hashtag/local?tag=go", "")

	untagged := s.Post(token, "nothing to tag")
	tagged := s.Post(token, "gophers #GO")
	public.expectUpdate("nothing to tag")
	public.expectUpdate("gophers")
	local.expectUpdate("nothing to tag")
	for _, es := range []*eventStream{tag, tagLocal} {
		if st := es.expectUpdate("gophers"); len(st.Tags) != 1 || st.Tags[0].Name != "go" {
			t.Fatalf("tagged update %+v", st)
		}
	}
	s.Call("DELETE", "/api/v1/statuses/"+untagged, token, nil)
	if ev := public.next(); ev.name != "delete" || ev.data != untagged {
		t.Fatalf("public event %+v; want the deletion of %s", ev, untagged)
	}
	s.Call("DELETE", "/api/v1/statuses/"+tagged, token, nil)
	if ev := tag.next(); ev.name != "delete" || ev.data != tagged {
		t.Fatalf("tag event %+v; want the deletion of %s (the untagged one is not its)", ev, tagged)
	}
}

// TestStreamScopes: a token's scopes decide which user streams it may
// read and whether the user stream carries notifications.
func TestStreamScopes(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	alice, aliceToken := s.User("alice")
	_, statusesOnly := s.User("bob", "read:statuses", "write:follows")
	_, notesOnly := s.User("carol", "read:notifications", "write:statuses")
	s.follow(statusesOnly, alice.ID)
	s.Drain()
	bob := s.listen("/api/v1/streaming/user", statusesOnly)
	carol := s.listen("/api/v1/streaming/user/notification", notesOnly)

	// What a stream should not carry is sent first (drained), so that it
	// would come before what it should.
	s.Post(notesOnly, "a post carol's stream does not carry")
	s.Drain()
	s.follow(aliceToken, s.lookup("carol"))
	carol.expectNotification("follow", "alice")
	s.Post(aliceToken, "@bob a mention bob's stream does not carry, and its update")
	s.Drain()
	s.Post(aliceToken, "the next one")
	bob.expectUpdate("a mention bob")
	bob.expectUpdate("the next one")
}

// lookup returns the id of a user.
func (s *server) lookup(name string) int64 {
	s.T.Helper()
	var a struct{ ID string }
	s.Call("GET", "/api/v1/accounts/lookup?acct="+name, "", nil).Decode(s.T, &a)
	n, err := strconv.ParseInt(a.ID, 10, 64)
	if err != nil {
		s.T.Fatalf("lookup %s: %v", name, err)
	}
	return n
}

// TestStreamRefused: the requests refused before a stream starts, with
// a JSON error.
func TestStreamRefused(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	_, token := s.User("alice")
	_, writeOnly := s.User("bob", "write")
	_, statusesOnly := s.User("carol", "read:statuses")
	for _, tc := range []struct {
		name, path, token string
		header            []string
		status            int
		message           string
	}{
		{"no token", "/api/v1/streaming/user", "", nil, 401, "Missing access token"},
		{"a wrong token", "/api/v1/streaming/public", "nope", nil, 401, "access token is invalid"},
		{"a wrong token in the query", "/api/v1/streaming/user?access_token=nope", "", nil, 401, "access token is invalid"},
		{"a stale cookie", "/api/v1/streaming/user", "", []string{"Cookie", retwis.SessionCookie + "=stale"}, 401, "Missing access token"},
		{"no read scope", "/api/v1/streaming/user", writeOnly, nil, 403, "required scopes"},
		{"no notifications scope", "/api/v1/streaming/user/notification", statusesOnly, nil, 403, "required scopes"},
		{"no tag", "/api/v1/streaming/hashtag", token, nil, 400, "Missing tag name"},
		{"a tag of nothing", "/api/v1/streaming/hashtag?tag=%CC%81", token, nil, 400, "Unknown tag"},
		{"no such stream", "/api/v1/streaming/nosuch", token, nil, 400, "Unknown channel"},
		{"a WebSocket with a wrong token", "/api/v1/streaming?stream=public", "nope",
			[]string{"Connection", "Upgrade", "Upgrade", "websocket"}, 401, "access token is invalid"},
		{"a WebSocket to a user stream without a token", "/api/v1/streaming?stream=user", "",
			[]string{"Connection", "Upgrade", "Upgrade", "websocket"}, 401, "Missing access token"},
		{"not a WebSocket", "/api/v1/streaming", token, nil, 404, "not found"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := s.Call("GET", tc.path, tc.token, nil, tc.header...)
			if msg := r.ErrorMessage(t); r.Status != tc.status || !strings.Contains(strings.ToLower(msg), strings.ToLower(tc.message)) {
				t.Fatalf("%d %q; want %d %q", r.Status, msg, tc.status, tc.message)
			}
		})
	}
	if r := s.Call("GET", "/api/v1/streaming/health", "", nil); r.Status != 200 || string(r.Body) != "OK" {
		t.Fatalf("health: %d %q", r.Status, r.Body)
	}
}

// TestStreamSession: the pages listen to the user stream with their
// session cookie.
func TestStreamSession(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	alice, aliceToken := s.User("alice")
	bob, secret, err := s.Store.Register(t.Context(), "bob", "password-bob")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Store.Follow(t.Context(), bob.ID, alice.ID); err != nil {
		t.Fatal(err)
	}
	s.Drain()
	stream := s.listen("/api/v1/streaming/user", "", "Cookie", retwis.SessionCookie+"="+secret)
	s.Post(aliceToken, "for the pages")
	stream.expectUpdate("for the pages")
}

// wsMessage is a message of the WebSocket: an event or an error.
type wsMessage struct {
	Stream  []string
	Event   string
	Payload string
	Error   string
	Status  int
}

// dial opens the WebSocket with query and opts.
func (s *server) dial(query string, opts *websocket.DialOptions) *websocket.Conn {
	s.T.Helper()
	u := "ws" + strings.TrimPrefix(s.URL, "http") + "/api/v1/streaming" + query
	c, resp, err := websocket.Dial(s.T.Context(), u, opts)
	if err != nil {
		s.T.Fatalf("dial %s: %v (%v)", u, err, resp)
	}
	s.T.Cleanup(func() { c.CloseNow() })
	return c
}

// readWS returns the next message.
func readWS(t *testing.T, c *websocket.Conn) wsMessage {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), wait)
	defer cancel()
	_, b, err := c.Read(ctx)
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	var m wsMessage
	decodeInto(t, string(b), &m)
	return m
}

// sendWS sends a JSON message.
func sendWS(t *testing.T, c *websocket.Conn, v any) {
	t.Helper()
	b := must.Value(json.Marshal(v))(t)
	if err := c.Write(t.Context(), websocket.MessageText, b); err != nil {
		t.Fatal(err)
	}
}

// settle waits until the server has carried out the messages sent
// before: it handles them in order, a subscription once Redis has it, so
// the answer to a request it refuses comes after.
func settle(t *testing.T, c *websocket.Conn) {
	t.Helper()
	sendWS(t, c, map[string]string{"type": "subscribe", "stream": "settle"})
	if m := readWS(t, c); m.Status != 400 || m.Error != "Unknown stream type" {
		t.Fatalf("message %+v; want the refusal of the unknown stream", m)
	}
}

// expectWS takes the next message and checks its stream and event, and
// that its payload (a string) has text.
func expectWS(t *testing.T, c *websocket.Conn, stream []string, event, text string) wsMessage {
	t.Helper()
	m := readWS(t, c)
	if strings.Join(m.Stream, "/") != strings.Join(stream, "/") || m.Event != event || !strings.Contains(m.Payload, text) {
		t.Fatalf("message %+v; want %s on %v with %q", m, event, stream, text)
	}
	return m
}

// TestStreamWebSocket: a WebSocket starts with the stream of its query,
// subscribes and unsubscribes with messages, and carries each event of
// each stream as Mastodon does (the payload a string of JSON); a user
// stream needs the token, given here as the subprotocol.
func TestStreamWebSocket(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	alice, aliceToken := s.User("alice")
	_, bobToken := s.User("bob")
	s.follow(bobToken, alice.ID)
	s.Drain()

	anon := s.dial("?stream=public", nil)
	sendWS(t, anon, map[string]string{"type": "subscribe", "stream": "hashtag", "tag": "Redis"})
	sendWS(t, anon, map[string]string{"type": "subscribe", "stream": "user"})
	if m := readWS(t, anon); m.Status != 401 {
		t.Fatalf("message %+v; want the user stream refused without a token", m)
	}
	settle(t, anon)
	bob := s.dial("?stream=user", &websocket.DialOptions{Subprotocols: []string{bobToken}})
	if bob.Subprotocol() != bobToken {
		t.Fatalf("subprotocol %q; want the token echoed", bob.Subprotocol())
	}

	id := s.Post(aliceToken, "caching #redis")
	m := expectWS(t, bob, []string{"user"}, "update", "caching")
	var st status
	decodeInto(t, m.Payload, &st)
	if st.ID != id || st.Account.Username != "alice" {
		t.Fatalf("payload %+v; want alice's post %s", st, id)
	}
	got := map[string]bool{}
	for range 2 {
		m := readWS(t, anon)
		got[strings.Join(m.Stream, "/")+" "+m.Event] = strings.Contains(m.Payload, `"id":"`+id+`"`)
	}
	if !got["public update"] || !got["hashtag/Redis update"] {
		t.Fatalf("the anonymous socket got %v; want the post on the public and the tag's stream", got)
	}

	sendWS(t, anon, map[string]string{"type": "unsubscribe", "stream": "public"})
	settle(t, anon)
	s.Call("DELETE", "/api/v1/statuses/"+id, aliceToken, nil)
	if m := readWS(t, anon); strings.Join(m.Stream, "/") != "hashtag/Redis" || m.Event != "delete" || m.Payload != id {
		t.Fatalf("message %+v; want only the tag's deletion of %s", m, id)
	}
	expectWS(t, bob, []string{"user"}, "delete", id)
}

// TestStreamMastodonLibrary: go-mastodon's streaming clients, Server-Sent
// Events and WebSocket, receive the update of a post made through
// another server process on the same Redis, and a notification.
func TestStreamMastodonLibrary(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	aliceToken, bobToken, carolToken := s.aliceFollowed()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	sse, err := s.Mastodon(&mastodon.Config{AccessToken: bobToken}).StreamingUser(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ws, err := s.Mastodon(&mastodon.Config{AccessToken: carolToken}).NewWSClient().StreamingWSUser(ctx)
	if err != nil {
		t.Fatal(err)
	}
	s.WaitSubscribed(3) // bob's stream, carol's and the revocations of their access

	other := newServerAt(t, s.RedisURL) // alice's app is connected to another server process
	other.Post(aliceToken, "from go-mastodon's point of view")
	other.Drain()
	other.follow(aliceToken, other.lookup("bob"))
	for name, events := range map[string]chan mastodon.Event{"SSE": sse, "WebSocket": ws} {
		ev := servertest.NextEvent(t, events)
		if u, ok := ev.(*mastodon.UpdateEvent); !ok || !strings.Contains(u.Status.Content, "point of view") || u.Status.Account.Username != "alice" {
			t.Fatalf("%s: event %#v; want the update", name, ev)
		}
	}
	ev := servertest.NextEvent(t, sse)
	if n, ok := ev.(*mastodon.NotificationEvent); !ok || n.Notification.Type != "follow" || n.Notification.Account.Username != "alice" {
		t.Fatalf("SSE: event %#v; want alice's follow", ev)
	}
}

// smallBuffers gives the connections it accepts small send buffers, so
// that a client that stops reading fills them after a few events.
type smallBuffers struct{ net.Listener }

func (l smallBuffers) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if tc, ok := c.(*net.TCPConn); ok {
		tc.SetWriteBuffer(4 << 10)
	}
	return c, err
}

// TestStreamSlowClient: a client that stops reading is disconnected
// once it is a buffer behind, while another of the same stream gets
// every event and goes on.
func TestStreamSlowClient(t *testing.T) {
	t.Parallel()
	s := newServerWith(t, redistest.Start(t).URL, streaming.Options{Buffer: 8}, func(h http.Handler) *httptest.Server {
		srv := httptest.NewUnstartedServer(h)
		srv.Listener = smallBuffers{srv.Listener}
		srv.Start()
		return srv
	})
	_, token := s.User("alice")
	small := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
		if tc, ok := c.(*net.TCPConn); ok {
			tc.SetReadBuffer(4 << 10)
		}
		return c, err
	}}}
	slow := s.listenWith(small, "/api/v1/streaming/public", "") // and reads no more

	fast := s.listen("/api/v1/streaming/public", "")
	long := strings.Repeat("a long post to fill the buffers ", 8)
	for i := 0; !strings.Contains(s.Logs.String(), "fell too far behind"); i++ {
		if i == 200 {
			t.Fatal("the slow client was not dropped after 200 events")
		}
		s.Post(token, long)
		fast.expectUpdate("a long post")
	}
	slow.expectEnd()
	s.Post(token, "still here")
	fast.expectUpdate("still here")
}

// TestStreamCloseDrains: Close ends every stream at once (a WebSocket as
// going away), returns once their handlers have, and refuses new ones.
//
// Not in parallel: it times Close.
func TestStreamCloseDrains(t *testing.T) {
	s := newServer(t)
	_, token := s.User("alice")
	streams := []*eventStream{s.listen("/api/v1/streaming/user", token), s.listen("/api/v1/streaming/public", "")}
	ws := s.dial("?stream=public", nil)
	start := time.Now()
	s.Handler.Close()
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("Close took %v", d)
	}
	for _, es := range streams {
		es.expectEnd()
	}
	ctx, cancel := context.WithTimeout(t.Context(), wait)
	defer cancel()
	if _, _, err := ws.Read(ctx); websocket.CloseStatus(err) != websocket.StatusGoingAway {
		t.Fatalf("the WebSocket ended with %v; want going away", err)
	}
	if r := s.Call("GET", "/api/v1/streaming/public", "", nil); r.Status != http.StatusServiceUnavailable {
		t.Fatalf("a stream after Close: %d %s", r.Status, r.Body)
	}
}

// TestStreamOutlivesTimeouts: the streams outlast the HTTP server's read
// and write timeouts (and the API's request timeout does not apply),
// with a heartbeat when quiet: a comment line, a WebSocket ping.
//
// Not in parallel: the server's timeouts are short (200ms), and a post
// must still be read and answered within them.
func TestStreamOutlivesTimeouts(t *testing.T) {
	const timeout = 200 * time.Millisecond
	s := newServerWith(t, redistest.Start(t).URL, streaming.Options{Heartbeat: timeout / 4}, func(h http.Handler) *httptest.Server {
		srv := httptest.NewUnstartedServer(h)
		srv.Config.ReadTimeout, srv.Config.WriteTimeout = timeout, timeout
		srv.Start()
		return srv
	})
	_, token := s.User("alice")
	es := s.listen("/api/v1/streaming/public", "")
	ws := s.dial("?stream=public", nil)
	pongs := make(chan struct{}, 1)
	go func() { // reading answers the server's pings
		for {
			if _, _, err := ws.Read(t.Context()); err != nil {
				close(pongs)
				return
			}
			pongs <- struct{}{}
		}
	}()
	for beats := 0; beats < 12; beats++ { // 3 timeouts
		if l := es.line(); l != ":thump" {
			t.Fatalf("line %q of a quiet stream; want a heartbeat", l)
		}
	}
	s.Post(token, "still streaming")
	es.expectUpdate("still streaming")
	select {
	case _, ok := <-pongs:
		if !ok {
			t.Fatal("the WebSocket ended")
		}
	case <-time.After(wait):
		t.Fatal("no event came on the WebSocket")
	}
}

// TestStreamCluster: the streams on a cluster, where each stream's
// channel is on the master of its slot, and the revocations too.
func TestStreamCluster(t *testing.T) {
	t.Parallel()
	s := newServerAt(t, redistest.Cluster(t))
	alice, aliceToken := s.User("alice")
	bob, bobToken := s.User("bob")
	s.follow(bobToken, alice.ID)
	s.Drain()
	user := s.listen("/api/v1/streaming/user", bobToken)
	ws := s.dial("/?stream=hashtag&tag=cluster", nil) // at /api/v1/streaming/, as many apps open it
	sendWS(t, ws, map[string]string{"type": "subscribe", "stream": "public"})
	settle(t, ws)
	id := s.Post(aliceToken, "across the #cluster")
	if st := user.expectUpdate("across the"); st.ID != id {
		t.Fatalf("update of %s; want %s", st.ID, id)
	}
	got := map[string]bool{}
	for range 2 {
		m := readWS(t, ws)
		got[strings.Join(m.Stream, "/")] = m.Event == "update" && strings.Contains(m.Payload, id)
	}
	if !got["public"] || !got["hashtag/cluster"] {
		t.Fatalf("the WebSocket got %v; want the post on the public and the tag's stream", got)
	}
	must.OK(t, s.Store.RevokeTokens(t.Context(), bob.ID))
	user.expectEndWithin(revokedWithin)
}

// TestStreamContentWarning: a post's content warning reaches the
// streams as the client API's entity carries it: go-mastodon's update
// event has spoiler_text and sensitive, and content the body only.
func TestStreamContentWarning(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	alice, aliceToken := s.User("alice")
	_, bobToken := s.User("bob")
	s.follow(bobToken, alice.ID)
	s.Drain()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	events, err := s.Mastodon(&mastodon.Config{AccessToken: bobToken}).StreamingUser(ctx)
	if err != nil {
		t.Fatal(err)
	}
	s.WaitSubscribed(2) // bob's stream and the revocations of his access
	if _, err := s.Mastodon(&mastodon.Config{AccessToken: aliceToken}).PostStatus(ctx,
		&mastodon.Toot{Status: "the ending", SpoilerText: "spoilers"}); err != nil {
		t.Fatal(err)
	}
	s.Drain()
	ev := servertest.NextEvent(t, events)
	if u, ok := ev.(*mastodon.UpdateEvent); !ok || u.Status.SpoilerText != "spoilers" || !u.Status.Sensitive ||
		strings.Contains(u.Status.Content, "spoilers") {
		t.Fatalf("event %#v; want the update with its warning apart", ev)
	}
}
