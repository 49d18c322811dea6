package parts_test

import (
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/retwis/retwis/internal/web/parts"
)

// keyed is a value of the kind parts.Key spells out: strings, numbers,
// booleans, lists and structs within each other.
type keyed struct {
	A     string
	N     int64
	Tags  []string
	Inner struct {
		B bool
		U uint8
		F float64
	}
	Pairs [2]pair
}

type pair struct {
	S string
	I int
}

// TestKeyTellsApart draws pairs of values made of few characters,
// among them those Key spells its lengths and ends with (digits, ':',
// ',', '['), and checks that two values have the same key exactly when
// they are equal (a nil list and an empty one alike).
func TestKeyTellsApart(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	word := func() string {
		b := make([]byte, r.IntN(4))
		for i := range b {
			b[i] = "1:,[a"[r.IntN(5)]
		}
		return string(b)
	}
	draw := func() keyed {
		var k keyed
		k.A, k.N = word(), int64(r.IntN(21)-10)
		for range r.IntN(3) {
			k.Tags = append(k.Tags, word())
		}
		k.Inner.B, k.Inner.U, k.Inner.F = r.IntN(2) == 1, uint8(r.IntN(3)), float64(r.IntN(3))/2
		k.Pairs[r.IntN(2)] = pair{S: word(), I: r.IntN(3)}
		return k
	}
	same := 0
	for range 50_000 {
		a, b := draw(), draw()
		if r.IntN(4) == 0 {
			b = a
		}
		ka, oka := parts.Key(a)
		kb, okb := parts.Key(b)
		if !oka || !okb {
			t.Fatalf("Key(%#v) or Key(%#v) failed", a, b)
		}
		equal := reflect.DeepEqual(nilTags(a), nilTags(b))
		if (ka == kb) != equal {
			t.Fatalf("%#v and %#v: keys %q and %q", a, b, ka, kb)
		}
		if equal {
			same++
		}
	}
	if same < 1000 {
		t.Errorf("only %d equal pairs drawn", same)
	}
}

// nilTags returns k with an empty list of tags made nil, which renders
// alike, and Key spells alike.
func nilTags(k keyed) keyed {
	if len(k.Tags) == 0 {
		k.Tags = nil
	}
	return k
}

// TestKeyRefuses checks that Key refuses what it cannot spell out:
// a pointer (a time.Time holds one), a map, an interface; a nil map or
// pointer it spells.
func TestKeyRefuses(t *testing.T) {
	t.Parallel()
	s := "x"
	for _, v := range []any{&s, map[string]int{}, struct{ V any }{1}, time.Now(), nil} {
		if k, ok := parts.Key(v); ok {
			t.Errorf("Key(%#v) = %q; want a refusal", v, k)
		}
	}
	if k, ok := parts.Key(struct{ T []time.Time }{}); !ok || k != "0[" {
		t.Errorf("an empty list of times: %q, %v; want 0[, true", k, ok)
	}
	if k, ok := parts.Key(struct {
		M map[int64]string
		P *string
	}{}); !ok || k != "nn" {
		t.Errorf("a nil map and a nil pointer: %q, %v; want nn, true", k, ok)
	}
}
