package password

import (
	"container/list"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"
)

// ErrBusy is returned when no hasher came free in time, or when the
// client's share of the queue is full.
var ErrBusy = errors.New("password: every hasher is busy")

// MaxWait bounds how long a call waits for a free hasher.
const MaxWait = 3 * time.Second

const (
	// perClient is how many requests of one client may wait; the next
	// is refused at once.
	perClient = 3
	// clientsPerHasher bounds the clients waiting, per hasher: at about
	// 20 ms a hash, a hasher serves some 150 in MaxWait, so a client
	// further back would likely time out after waiting anyway.
	clientsPerHasher = 128
)

// The refusals that cost nothing: made before any wait.
var (
	errQueueFull = fmt.Errorf("%w: %d requests of this client are waiting already", ErrBusy, perClient)
	errCrowded   = fmt.Errorf("%w: too many clients are waiting", ErrBusy)
)

// clientKey is the context key of the client a hash is made for.
type clientKey struct{}

// WithClient returns a context saying that the hashes made under it are
// for the client key names (the client's address, say): a Hasher serves
// the clients that wait in turn, and bounds what each may queue.
func WithClient(ctx context.Context, key string) context.Context {
	return context.WithValue(ctx, clientKey{}, client{key: key, named: true})
}

// WithKnownClient returns a context saying that the hashes made under it
// are for a known client that key names (a browser that logged in to the
// account before, say): known clients wait in a lane of their own, which
// takes every other hasher that comes free while both lanes wait, so
// that a flood of unknown clients, from however many addresses, holds a
// known one up by about one hash.
func WithKnownClient(ctx context.Context, key string) context.Context {
	return context.WithValue(ctx, clientKey{}, client{key: key, named: true, known: true})
}

// client is whom a hash is for: a named client, known or not, or, with
// named false, the anonymous one that every call without WithClient
// shares.
type client struct {
	key   string
	named bool
	known bool
}

func clientOf(ctx context.Context) client {
	c, _ := ctx.Value(clientKey{}).(client)
	return c
}

// lane returns the index in Hasher.lanes of the lane c waits in.
func (c client) lane() int {
	if c.known {
		return knownLane
	}
	return unknownLane
}

// The lanes of a Hasher.
const (
	unknownLane = iota // the clients that are not known, and the anonymous one
	knownLane          // the known clients (WithKnownClient)
)

// queue holds the requests of one client waiting for a hasher.
type queue struct {
	who     client
	waiting []chan struct{} // oldest first; each closed when given a hasher
	turn    *list.Element   // the client's place in its lane's turns
}

// lane holds the clients of one kind waiting for a hasher.
type lane struct {
	queues map[client]*queue // the clients waiting
	turns  list.List         // of *queue: the clients waiting, whose turn first
}

// drop removes a client that has nothing waiting. The caller holds the
// Hasher's mu.
func (l *lane) drop(q *queue) {
	l.turns.Remove(q.turn)
	delete(l.queues, q.who)
}

// Hasher hashes and verifies passwords on a fixed number of hashers.
// Each argon2id computation holds its memory (19 MiB by default) and a
// core for about 20 ms, so an unbounded burst of logins (even for
// unknown names) would exhaust memory; with the bound a burst queues,
// fairly between clients (see the package documentation), and a caller
// that waited MaxWait gets ErrBusy. Known clients (WithKnownClient)
// wait in a lane of their own, bounded alike.
type Hasher struct {
	params     Params
	dummy      string // a hash to verify against when there is no account
	hashers    int
	maxClients int // clients that may wait at once in a lane (the anonymous one may come beyond)

	mu        sync.Mutex
	running   int     // hashers in use; while one is free, nobody waits
	lanes     [2]lane // the clients waiting: unknownLane, knownLane
	knownNext bool    // while both lanes wait, the next hasher goes to the known
}

// NewHasher returns a Hasher making hashes with p on at most hashers
// computations at once.
func NewHasher(p Params, hashers int) (*Hasher, error) {
	dummy, err := Hash("no such user", p)
	if err != nil {
		return nil, fmt.Errorf("password: %w", err)
	}
	hashers = max(hashers, 1)
	h := &Hasher{params: p, dummy: dummy, hashers: hashers, maxClients: clientsPerHasher * hashers}
	for i := range h.lanes {
		h.lanes[i].queues = map[client]*queue{}
	}
	return h, nil
}

// acquire takes a hasher for the context's client, waiting its turn for
// at most MaxWait; a request beyond the client's share is refused at
// once. After a nil error, the caller must call release.
func (h *Hasher) acquire(ctx context.Context) error {
	who := clientOf(ctx)
	h.mu.Lock()
	if h.running < h.hashers {
		h.running++
		h.mu.Unlock()
		return nil
	}
	ready, err := h.enqueue(who)
	h.mu.Unlock()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, MaxWait)
	defer cancel()
	select {
	case <-ready:
		return nil
	case <-ctx.Done():
		h.leave(who, ready)
		return fmt.Errorf("%w: %w", ErrBusy, ctx.Err())
	}
}

// enqueue adds a request of who to its queue, the client joining the
// end of its lane's turns if it was not waiting; the returned channel is
// closed when the request is given a hasher. The caller holds mu.
func (h *Hasher) enqueue(who client) (chan struct{}, error) {
	l := &h.lanes[who.lane()]
	q := l.queues[who]
	switch {
	case q == nil && who.named && len(l.queues) >= h.maxClients:
		return nil, errCrowded
	case q != nil && who.named && len(q.waiting) >= perClient:
		return nil, errQueueFull
	case q == nil:
		q = &queue{who: who}
		q.turn = l.turns.PushBack(q)
		l.queues[who] = q
	}
	ready := make(chan struct{})
	q.waiting = append(q.waiting, ready)
	return ready, nil
}

// leave takes back a request that stopped waiting; if it was given a
// hasher meanwhile, the hasher goes to the next in turn.
func (h *Hasher) leave(who client, ready chan struct{}) {
	h.mu.Lock()
	defer h.mu.Unlock()
	l := &h.lanes[who.lane()]
	q := l.queues[who]
	if q == nil || !slices.Contains(q.waiting, ready) {
		h.handOn() // given a hasher meanwhile
		return
	}
	q.waiting = slices.DeleteFunc(q.waiting, func(c chan struct{}) bool { return c == ready })
	if len(q.waiting) == 0 {
		l.drop(q)
	}
}

// release gives back a hasher taken by acquire.
func (h *Hasher) release() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.handOn()
}

// handOn gives a hasher that came free to the oldest request of the
// client whose turn it is in the lane whose turn it is, that client
// going to the end of its lane's turns; with nobody waiting, the hasher
// is free. The caller holds mu.
func (h *Hasher) handOn() {
	l := h.nextLane()
	if l == nil {
		h.running--
		return
	}
	front := l.turns.Front()
	q := front.Value.(*queue)
	close(q.waiting[0])
	q.waiting = slices.Delete(q.waiting, 0, 1)
	if len(q.waiting) == 0 {
		l.drop(q)
	} else {
		l.turns.MoveToBack(front)
	}
}

// nextLane returns the lane to serve next: the only one with clients
// waiting, or, while both have, each in turn; nil while nobody waits.
// The caller holds mu.
func (h *Hasher) nextLane() *lane {
	unknown, known := &h.lanes[unknownLane], &h.lanes[knownLane]
	switch {
	case known.turns.Len() == 0 && unknown.turns.Len() == 0:
		return nil
	case known.turns.Len() == 0:
		return unknown
	case unknown.turns.Len() == 0:
		return known
	}
	h.knownNext = !h.knownNext
	if h.knownNext {
		return known
	}
	return unknown
}

// Hash hashes a new password.
func (h *Hasher) Hash(ctx context.Context, pass string) (string, error) {
	if err := h.acquire(ctx); err != nil {
		return "", err
	}
	defer h.release()
	return Hash(pass, h.params)
}

// Verify checks pass against hash. With hash empty it checks against a
// dummy hash and reports false, so that a login for an unknown name costs
// the same as one for a real account.
func (h *Hasher) Verify(ctx context.Context, pass, hash string) (bool, error) {
	if err := h.acquire(ctx); err != nil {
		return false, err
	}
	defer h.release()
	if hash == "" {
		Verify(pass, h.dummy)
		return false, nil
	}
	return Verify(pass, hash)
}

// InProgress returns how many computations are running.
func (h *Hasher) InProgress() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.running
}

// Waiting returns how many requests wait for a hasher: of clients that
// are not known (and the anonymous one), and of known clients.
func (h *Hasher) Waiting() (unknown, known int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	count := func(l *lane) (n int) {
		for _, q := range l.queues {
			n += len(q.waiting)
		}
		return n
	}
	return count(&h.lanes[unknownLane]), count(&h.lanes[knownLane])
}
