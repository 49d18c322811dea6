package retwis_test

import (
	"strings"
	"testing"
	"time"

	"github.com/retwis/retwis"
)

func TestParseRate(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want retwis.Rate
		ok   bool
	}{
		{"300/5m", retwis.Rate{Count: 300, Per: 5 * time.Minute}, true},
		{"1/1ms", retwis.Rate{Count: 1, Per: time.Millisecond}, true},
		{"off", retwis.Rate{}, true},
		{"0/1m", retwis.Rate{}, false},
		{"10", retwis.Rate{}, false},
		{"10/", retwis.Rate{}, false},
		{"x/1m", retwis.Rate{}, false},
		{"10/-1m", retwis.Rate{}, false},
		{"2000000/1h", retwis.Rate{}, false},
		{"10/9000h", retwis.Rate{}, false},
		{"1000/1ms", retwis.Rate{}, false},
	} {
		got, err := retwis.ParseRate(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("ParseRate(%q) = %v, %v", tc.in, got, err)
		}
		if err == nil && !got.Off() {
			if again, err := retwis.ParseRate(got.String()); err != nil || again != got {
				t.Errorf("%v does not read back: %v, %v", got, again, err)
			}
		}
	}
}

func TestTooManyError(t *testing.T) {
	for wait, want := range map[time.Duration]string{
		500 * time.Millisecond: "in a moment", 30 * time.Second: "in 30 seconds",
		10 * time.Minute: "in about 10 minutes", 3 * time.Hour: "in about 3 hours",
	} {
		err := retwis.TooManyError(retwis.Quota{RetryAfter: wait})
		if retwis.ErrorKind(err) != retwis.TooMany || !strings.Contains(retwis.ErrorMessage(err), want) {
			t.Errorf("wait %v: %q", wait, retwis.ErrorMessage(err))
		}
	}
}

func FuzzParseRate(f *testing.F) {
	for _, s := range []string{"300/5m", "off", "1/1ms", "0/0", "9999999999999999999/1h", "10/1h30m", "\x00/1s"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := retwis.ParseRate(s)
		if err != nil || r.Off() {
			return
		}
		if r.Interval() < time.Millisecond {
			t.Fatalf("%q: interval %v below a millisecond", s, r.Interval())
		}
		if again, err := retwis.ParseRate(r.String()); err != nil || again != r {
			t.Fatalf("%q reads as %v, which reads back as %v, %v", s, r, again, err)
		}
	})
}
