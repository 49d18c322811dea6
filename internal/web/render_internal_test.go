package web

import (
	"testing"
	"time"
)

func TestSince(t *testing.T) {
	for _, tc := range []struct {
		d    time.Duration
		want string
	}{
		{-time.Minute, "just now"}, // clock skew between servers
		{0, "just now"},
		{4 * time.Second, "just now"},
		{5 * time.Second, "5 seconds ago"},
		{time.Minute, "1 minute ago"},
		{3*time.Minute + 59*time.Second, "3 minutes ago"},
		{time.Hour, "1 hour ago"},
		{49 * time.Hour, "2 days ago"},
		{8 * 24 * time.Hour, "1 week ago"},
		{45 * 24 * time.Hour, "1 month ago"},
		{800 * 24 * time.Hour, "2 years ago"},
	} {
		if got := since(tc.d); got != tc.want {
			t.Errorf("since(%v) = %q; want %q", tc.d, got, tc.want)
		}
	}
}
