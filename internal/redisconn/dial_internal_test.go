package redisconn

import "testing"

func TestSeedsAsQuery(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"redis://a:1", "redis://a:1"},
		{"redis://a:1,b:2,c:3", "redis://a:1?addr=b%3A2&addr=c%3A3"},
		{"redis://u:p@a:1,b:2/0", "redis://u:p@a:1/0?addr=b%3A2"},
		{"rediss://a:1,b:2?dial_timeout=1s", "rediss://a:1?dial_timeout=1s&addr=b%3A2"},
		{"unix:///tmp/a,b.sock", "unix:///tmp/a,b.sock"},
	} {
		if got := SeedsAsQuery(tc.in); got != tc.want {
			t.Errorf("SeedsAsQuery(%q) = %q; want %q", tc.in, got, tc.want)
		}
	}
}
