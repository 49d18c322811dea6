// Package must ends a test at the first error of its setup: the calls
// that prepare what a test checks (sign-ups, posts, requests whose
// answer is not what the test is about) succeed, or the test fails at
// once with the error and the line that made it, instead of going on
// with a zero value and failing later, far from the cause.
package must

import "testing"

// Value returns v, or ends the test with err if it is not nil:
// u := must.Value(t, st.Lookup(ctx, "alice")).
func Value[T any](t testing.TB, v T, err error) T {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// OK ends the test with err if it is not nil: must.OK(t, st.Follow(ctx, a, b)).
func OK(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
