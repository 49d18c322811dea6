package password

import (
	"context"
	"errors"
	"testing"
)

// TestHasherBusy fills every slot: a caller that cannot wait is told the
// hasher is busy, and a freed slot serves the next caller.
func TestHasherBusy(t *testing.T) {
	h, err := NewHasher(Params{Memory: 64, Time: 1, Threads: 1}, 1)
	if err != nil {
		t.Fatal(err)
	}
	hash, err := h.Hash(t.Context(), "secret")
	if err != nil {
		t.Fatal(err)
	}
	h.slots <- struct{}{} // somebody else is hashing
	if h.InProgress() != 1 {
		t.Fatalf("InProgress = %d; want 1", h.InProgress())
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := h.Verify(ctx, "secret", hash); !errors.Is(err, ErrBusy) {
		t.Fatalf("Verify with every slot taken = %v; want ErrBusy", err)
	}
	<-h.slots
	for _, tc := range []struct {
		pass, hash string
		want       bool
	}{{"secret", hash, true}, {"wrong", hash, false}, {"secret", "", false}} {
		if ok, err := h.Verify(t.Context(), tc.pass, tc.hash); err != nil || ok != tc.want {
			t.Errorf("Verify(%q, %q) = %v, %v; want %v", tc.pass, tc.hash, ok, err, tc.want)
		}
	}
}
