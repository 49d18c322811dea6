package bounded

import "testing"

// TestMap fills a Map past its capacity and checks that the oldest
// entries go first, that storing a kept key again keeps its place, and
// that a Map of no capacity keeps nothing.
func TestMap(t *testing.T) {
	t.Parallel()
	m := New[int, string](3)
	for k := 1; k <= 3; k++ {
		m.Store(k, "v")
	}
	m.Store(1, "again") // kept already: keeps its place, the oldest
	m.Store(4, "v")     // evicts 1
	m.Store(5, "v")     // evicts 2
	for k, want := range map[int]bool{1: false, 2: false, 3: true, 4: true, 5: true} {
		if _, ok := m.Load(k); ok != want {
			t.Errorf("key %d kept: %v; want %v", k, ok, want)
		}
	}
	if n := m.Len(); n != 3 {
		t.Errorf("Len = %d; want the capacity, 3", n)
	}
	if v, _ := m.Load(3); v != "v" {
		t.Errorf("Load(3) = %q", v)
	}
	none := New[int, int](0)
	none.Store(1, 1)
	if _, ok := none.Load(1); ok || none.Len() != 0 {
		t.Error("a Map of no capacity kept an entry")
	}
}

// TestLoadOrMake: a value is made once, then kept.
func TestLoadOrMake(t *testing.T) {
	t.Parallel()
	b := New[string, int](2)
	made := 0
	mk := func(k string) int { made++; return len(k) }
	for range 3 {
		if v := b.LoadOrMake("abc", mk); v != 3 {
			t.Fatalf("got %d, want 3", v)
		}
	}
	if made != 1 {
		t.Errorf("made %d times, want once", made)
	}
}
