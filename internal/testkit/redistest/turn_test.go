package redistest

import (
	"testing"
	"time"
)

// endingTB is a test that the test of turn ends when it likes: it keeps
// its cleanups until end.
type endingTB struct {
	testing.TB
	name     string
	cleanups []func()
}

func (e *endingTB) Name() string      { return e.name }
func (e *endingTB) Cleanup(fn func()) { e.cleanups = append(e.cleanups, fn) }

// end runs the cleanups, the last first, as the end of a test does.
func (e *endingTB) end() {
	for i := len(e.cleanups) - 1; i >= 0; i-- {
		e.cleanups[i]()
	}
	e.cleanups = nil
}

// TestTurn: a test that holds the turn, or a subtest of it, takes it
// again at once; another test gets it once the holder ends.
func TestTurn(t *testing.T) {
	t.Parallel()
	var tn turn
	a, b := &endingTB{TB: t, name: "TestA"}, &endingTB{TB: t, name: "TestB"}
	tn.take(a)
	taken := make(chan struct{})
	go func() { tn.take(b); close(taken) }()
	tn.take(a)
	tn.take(&endingTB{TB: t, name: "TestA/sub"})
	select {
	case <-taken:
		t.Fatal("another test took the turn while TestA held it")
	default:
	}
	a.end()
	select {
	case <-taken:
	case <-time.After(10 * time.Second):
		t.Fatal("the turn did not pass on when its holder ended")
	}
	b.end()
	tn.take(a) // free again
	a.end()
}
