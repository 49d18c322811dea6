package redistest

import (
	"strconv"
	"testing"

	"github.com/redis/rueidis"
)

// Do runs a raw command through c, a client apart from the store's for
// setting up and inspecting, and returns its reply as a string ("" for
// nil, an integer in decimal); an error fails the test.
func Do(t testing.TB, c rueidis.Client, args ...string) string {
	t.Helper()
	msg, err := c.Do(t.Context(), c.B().Arbitrary(args...).Build()).ToMessage()
	if rueidis.IsRedisNil(err) {
		return ""
	}
	if err != nil {
		t.Fatalf("%v: %v", args, err)
	}
	if msg.IsInt64() {
		n, _ := msg.AsInt64()
		return strconv.FormatInt(n, 10)
	}
	v, _ := msg.ToString()
	return v
}

// Strs runs a raw command through c whose reply is a list of strings,
// and returns it; an error fails the test.
func Strs(t testing.TB, c rueidis.Client, args ...string) []string {
	t.Helper()
	v, err := c.Do(t.Context(), c.B().Arbitrary(args...).Build()).AsStrSlice()
	if err != nil {
		t.Fatalf("%v: %v", args, err)
	}
	return v
}
