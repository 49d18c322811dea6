package streaming

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/coder/websocket"

	"github.com/retwis/retwis/internal/api/apiwire"
	"github.com/retwis/retwis/internal/livehub"
	"github.com/retwis/retwis/internal/middleware"
)

// streamWebSocket answers GET /api/v1/streaming: a WebSocket that carries
// the events of any number of streams, the one named by the stream
// (and tag) parameters to begin with, and those the client subscribes to
// with messages {"type": "subscribe", "stream": "hashtag", "tag": "x"}
// ("unsubscribe" to stop). Each event is a message {"stream": ["user"],
// "event": "update", "payload": "<the Status as a string>"}, as Mastodon
// sends them. The token comes in the Authorization header, the
// access_token parameter or, as browsers can send nothing else, as the
// subprotocol (echoed back). A plain request is answered 404, which
// tells apps that the streams are on this host.
func (s *Server) streamWebSocket(w http.ResponseWriter, r *http.Request) {
	if !isUpgrade(r) {
		apiwire.NotFound(w, r)
		return
	}
	secret, protocol := wsToken(r)
	l, err := s.listenerOf(r, secret, false)
	if err != nil {
		s.mw.Fail(w, r, err)
		return
	}
	var first []liveStream
	if name := r.URL.Query().Get("stream"); name != "" {
		ls, refused := s.resolve(r.Context(), name, streamArg(name, r.URL.Query()), l)
		if refused != nil {
			apiwire.RenderError(w, r, refused.status, refused.message)
			return
		}
		first = append(first, ls)
	}
	release, ok := s.admit(w, r, l)
	if !ok {
		return
	}
	defer release()
	c, err := s.hub.Client()
	if err == nil {
		defer c.Close()
		err = s.open(r.Context(), c, l, first...)
	}
	if err != nil {
		s.streamUnavailable(w, r, err)
		return
	}
	ws := &wsSession{s: s, client: c, listener: l, origin: middleware.Origin(r), streams: map[string]liveStream{}}
	if ws.conn, err = s.acceptWebSocket(w, r, protocol); err != nil {
		return // answered
	}
	ws.run(first)
	s.streamEnded(r, c)
}

// wsToken returns the token of a WebSocket request: as every request
// carries it, or else as the subprotocol it asks for (then protocol too).
func wsToken(r *http.Request) (secret, protocol string) {
	if secret = apiwire.Bearer(r); secret != "" {
		return secret, ""
	}
	protocol = strings.TrimSpace(strings.Split(r.Header.Get("Sec-WebSocket-Protocol"), ",")[0])
	return protocol, protocol
}

// isUpgrade reports whether r asks for a WebSocket.
func isUpgrade(r *http.Request) bool {
	return strings.EqualFold(r.Header.Get("Upgrade"), "websocket")
}

// acceptWebSocket upgrades the connection. Any origin may connect, as
// any may call the API: the socket is authorized by a token, never by a
// cookie, so another site gains nothing by opening one.
func (s *Server) acceptWebSocket(w http.ResponseWriter, r *http.Request, protocol string) (*websocket.Conn, error) {
	// The hijacked connection keeps the server's deadlines, which would
	// end it: writes get deadlines of their own.
	rc := http.NewResponseController(w)
	rc.SetReadDeadline(time.Time{})
	rc.SetWriteDeadline(time.Time{})
	opts := &websocket.AcceptOptions{InsecureSkipVerify: true}
	if protocol != "" {
		opts.Subprotocols = []string{protocol}
	}
	conn, err := websocket.Accept(w, r, opts)
	if err != nil {
		s.log.Info("websocket refused", "err", err)
		return nil, err
	}
	conn.SetReadLimit(4 << 10) // subscriptions are small
	return conn, nil
}

// wsSession is a WebSocket connection and its streams.
type wsSession struct {
	s        *Server
	conn     *websocket.Conn
	client   *livehub.Client
	listener listener
	origin   string // of the request, for the entities' URLs

	mu      sync.Mutex
	streams map[string]liveStream // by key
}

// run serves the connection until the client goes away, stops answering
// pings, or the Hub ends the stream.
func (ws *wsSession) run(first []liveStream) {
	for _, ls := range first {
		ws.streams[ls.key()] = ls
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { defer cancel(); ws.read(ctx) })
	wg.Go(func() { defer cancel(); ws.ping(ctx) })
	revoked := ws.send(ctx)
	ws.client.Close() // the Hub need not wait for the close handshake
	switch {
	case revoked:
		ws.conn.Close(websocket.StatusPolicyViolation, "The access token was revoked.")
	case errors.Is(ws.client.Err(), livehub.ErrClosed):
		ws.conn.Close(websocket.StatusGoingAway, "The server is shutting down.")
	default:
		ws.conn.CloseNow()
	}
	cancel()
	wg.Wait()
}

// send writes the events of the client's streams until ctx or the
// client ends, or the listener's access is taken away (revoked true).
func (ws *wsSession) send(ctx context.Context) (revoked bool) {
	for {
		select {
		case <-ctx.Done():
			return false
		case <-ws.client.Done():
			return false
		case m := <-ws.client.Events():
			if m != nil && ws.listener.revokedBy(m) {
				return true
			}
			if m == nil || !ws.deliver(m) {
				return false
			}
		}
	}
}

// wsEvent is an event as a WebSocket carries it.
type wsEvent struct {
	Stream  []string `json:"stream"`
	Event   string   `json:"event"`
	Payload string   `json:"payload"`
}

// deliver sends m to each of the connection's streams that reads its
// source, and reports whether the connection took it.
func (ws *wsSession) deliver(m *livehub.Message) bool {
	var to []liveStream
	ws.mu.Lock()
	for _, ls := range ws.streams {
		if ls.source == m.Stream && ls.sends(m.Event.Kind) {
			to = append(to, ls)
		}
	}
	ws.mu.Unlock()
	to = slices.DeleteFunc(to, func(ls liveStream) bool { return !ws.s.shows(ls, ws.listener, m.Event) })
	if len(to) == 0 {
		return true
	}
	for _, ls := range to { // a Status is rendered once for all (payloads keeps it)
		event, data, err := ws.s.payload(ws.origin, ws.listener.user, ls, m.Event)
		if err != nil {
			ws.s.log.Warn("live event", "event", m.Event.Kind, "err", err)
		}
		if data != "" && ws.write(wsEvent{Stream: ls.label(), Event: event, Payload: data}) != nil {
			return false
		}
	}
	return true
}

// write sends v as a JSON text message. A client too slow to take it
// within the write timeout, or that the Hub dropped meanwhile, is cut.
func (ws *wsSession) write(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ws.client.Context(), streamWriteTimeout)
	defer cancel()
	return ws.conn.Write(ctx, websocket.MessageText, b)
}

// wsRequest is a message of the client.
type wsRequest struct {
	Type   string `json:"type"`
	Stream string `json:"stream"`
	Tag    string `json:"tag"`
	List   string `json:"list"`
}

// arg is the argument of the stream req names: its tag, or its list.
func (req wsRequest) arg() string {
	if req.Stream == "list" {
		return req.List
	}
	return req.Tag
}

// wsError is Mastodon's answer to a request it cannot carry out.
type wsError struct {
	Error  string `json:"error"`
	Status int    `json:"status"`
}

// read carries out the client's messages until it goes away.
func (ws *wsSession) read(ctx context.Context) {
	for {
		typ, b, err := ws.conn.Read(ctx)
		if err != nil {
			return
		}
		var req wsRequest
		if typ != websocket.MessageText || json.Unmarshal(b, &req) != nil {
			ws.write(wsError{"Could not read the message: send JSON text.", http.StatusBadRequest})
			continue
		}
		switch req.Type {
		case "subscribe":
			ws.subscribe(ctx, req)
		case "unsubscribe":
			ws.unsubscribe(req)
		}
	}
}

// subscribe adds the stream req names, or tells the client why not.
func (ws *wsSession) subscribe(ctx context.Context, req wsRequest) {
	ls, refused := ws.s.resolve(ctx, req.Stream, req.arg(), ws.listener)
	ws.mu.Lock()
	_, had := ws.streams[ls.key()]
	full := len(ws.streams) >= maxStreams
	ws.mu.Unlock()
	switch {
	case refused != nil:
		ws.write(wsError{refused.message, refused.status})
		return
	case had:
		return
	case full:
		ws.write(wsError{"Too many streams on one connection.", http.StatusBadRequest})
		return
	}
	if err := ws.s.subscribe(ctx, ws.client, ls); err != nil {
		ws.write(wsError{"Live updates are unavailable right now.", http.StatusServiceUnavailable})
		return
	}
	ws.mu.Lock()
	ws.streams[ls.key()] = ls
	ws.mu.Unlock()
}

// unsubscribe takes the stream req names off, and the source it reads
// if no other stream of the connection does.
func (ws *wsSession) unsubscribe(req wsRequest) {
	ls, refused := resolveStream(req.Stream, req.arg(), ws.listener)
	if refused != nil {
		return
	}
	ws.mu.Lock()
	delete(ws.streams, ls.key())
	shared := false
	for _, other := range ws.streams {
		shared = shared || other.source == ls.source
	}
	ws.mu.Unlock()
	if !shared {
		ws.client.Unsubscribe(ls.source)
	}
}

// ping checks every heartbeat that the client still answers.
func (ws *wsSession) ping(ctx context.Context) {
	t := time.NewTicker(ws.s.heartbeat)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		pctx, cancel := context.WithTimeout(ctx, streamWriteTimeout)
		err := ws.conn.Ping(pctx)
		cancel()
		if err != nil {
			return
		}
	}
}
