// Package must ends a test at the first error of its setup: the calls
// that prepare what a test checks (sign-ups, posts, requests whose
// answer is not what the test is about) succeed, or the test fails at
// once with the error and the line that made it, instead of going on
// with a zero value and failing later, far from the cause.
package must

import "testing"

// Value takes the two results of a call and returns a function of the
// test that returns the value, or ends the test with the error if it is
// not nil:
//
//	u := must.Value(st.Lookup(ctx, "alice"))(t)
//
// (Go passes a call's results on only as all of a function's arguments,
// hence the test given apart.)
func Value[T any](v T, err error) func(t testing.TB) T {
	return func(t testing.TB) T {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}

// OK ends the test with err if it is not nil: must.OK(t, st.Follow(ctx, a, b)).
func OK(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
