package retwis_test

import (
	"testing"

	"github.com/retwis/retwis"
)

// TestParseSize reads sizes with and without units, refuses the
// malformed, and writes them back.
func TestParseSize(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]int64{"0": 0, "1234": 1234, "1GB": 1 << 30, "500MB": 500 << 20, "1.5 gb": 3 << 29,
		"2KB": 2048, "7B": 7, "1TB": 1 << 40} {
		if n, err := retwis.ParseSize(in); err != nil || n != want {
			t.Errorf("%q: %d, %v; want %d", in, n, err, want)
		}
	}
	for _, in := range []string{"", "MB", "1XB", "-1", "1 G B", "ten", "1e30GB", "1e3", "Inf", "NaN"} {
		if n, err := retwis.ParseSize(in); err == nil {
			t.Errorf("%q was read as %d", in, n)
		}
	}
	for n, want := range map[int64]string{1 << 30: "1GB", 1536 << 10: "1536KB", 7: "7", 0: "0"} {
		if got := retwis.FormatSize(n); got != want {
			t.Errorf("FormatSize(%d) = %q; want %q", n, got, want)
		}
	}
}
