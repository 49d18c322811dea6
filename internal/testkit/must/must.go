// Package must ends a test at the first error of its setup: the calls
// that prepare what a test checks (sign-ups, posts, requests whose
// answer is not what the test is about) succeed, or the test fails at
// once with the error and the line that made it, instead of going on
// with a zero value and failing later, far from the cause.
package must

import "testing"

// Value takes what a call returns, a value and an error, and gives a
// function that returns the value to a test, or ends the test with the
// error if there is one:
//
//	req := must.Value(http.NewRequest("GET", url, nil))(t)
//
// The test comes last because Go passes a call's results on as they are
// only when they are all of another call's arguments: must.Value(t,
// http.NewRequest(…)) does not compile.
func Value[T any](v T, err error) func(testing.TB) T {
	return func(t testing.TB) T {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}

// OK ends the test with err if it is not nil:
//
//	must.OK(t, st.Follow(ctx, a, b))
func OK(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
