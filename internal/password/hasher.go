package password

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// ErrBusy is returned when no hashing slot came free in time.
var ErrBusy = errors.New("password: every hasher is busy")

// Hasher hashes and verifies passwords with at most a fixed number of
// computations at once. Each argon2id computation holds its memory (19
// MiB by default) and a core for about 20 ms, so an unbounded burst of
// logins (even for unknown names) would exhaust memory; with the bound a
// burst only queues, and a caller that waited MaxWait gets ErrBusy.
type Hasher struct {
	params Params
	slots  chan struct{}
	dummy  string // a hash to verify against when there is no account
}

// MaxWait bounds how long a call waits for a free hashing slot.
const MaxWait = 3 * time.Second

// NewHasher returns a Hasher making hashes with p, running at most slots
// computations at once.
func NewHasher(p Params, slots int) (*Hasher, error) {
	dummy, err := Hash("no such user", p)
	if err != nil {
		return nil, fmt.Errorf("password: %w", err)
	}
	return &Hasher{params: p, slots: make(chan struct{}, max(slots, 1)), dummy: dummy}, nil
}

// acquire takes a hashing slot, waiting at most MaxWait.
func (h *Hasher) acquire(ctx context.Context) (release func(), err error) {
	ctx, cancel := context.WithTimeout(ctx, MaxWait)
	defer cancel()
	select {
	case h.slots <- struct{}{}:
		return func() { <-h.slots }, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("%w: %w", ErrBusy, ctx.Err())
	}
}

// Hash hashes a new password.
func (h *Hasher) Hash(ctx context.Context, pass string) (string, error) {
	release, err := h.acquire(ctx)
	if err != nil {
		return "", err
	}
	defer release()
	return Hash(pass, h.params)
}

// Verify checks pass against hash. With hash empty it checks against a
// dummy hash and reports false, so that a login for an unknown name costs
// the same as one for a real account.
func (h *Hasher) Verify(ctx context.Context, pass, hash string) (bool, error) {
	release, err := h.acquire(ctx)
	if err != nil {
		return false, err
	}
	defer release()
	if hash == "" {
		Verify(pass, h.dummy)
		return false, nil
	}
	return Verify(pass, hash)
}

// InProgress returns how many computations are running.
func (h *Hasher) InProgress() int { return len(h.slots) }
