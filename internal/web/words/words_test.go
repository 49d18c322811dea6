package words

import (
	"testing"
	"time"
)

func TestSince(t *testing.T) {
	t.Parallel()
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
		{59 * time.Second, "59 seconds ago"},
		{100 * 365 * 24 * time.Hour, "100 years ago"},
	} {
		if got := Since(tc.d); got != tc.want {
			t.Errorf("Since(%v) = %q; want %q", tc.d, got, tc.want)
		}
	}
}

func TestDeviceName(t *testing.T) {
	t.Parallel()
	for ua, want := range map[string]string{
		"Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0":                                                                 "Firefox on Linux",
		"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36 Edg/126.0.0.0":          "Edge on Windows",
		"Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15":                     "Safari on macOS",
		"Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/126.0 Mobile/15E148 Safari/604.1": "Chrome on iOS",
		"Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Mobile Safari/537.36":                  "Chrome on Android",
		"Mozilla/5.0 (X11; CrOS x86_64 14541.0.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36":                         "Chrome on ChromeOS",
		"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36 OPR/111.0.0.0":          "Opera on Windows",
		"Lynx/2.9.0 libwww-FM/2.14 (Linux)": "A browser on Linux",
		"curl/8.5.0":                        "curl/8.5.0",
		"":                                  "",
	} {
		if got := DeviceName(ua); got != want {
			t.Errorf("DeviceName(%q) = %q; want %q", ua, got, want)
		}
	}
}
