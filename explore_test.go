package retwis_test

import (
	"testing"

	"github.com/retwis/retwis"
)

func TestParseRange(t *testing.T) {
	for _, c := range []struct {
		in   string
		want retwis.Range
		bad  bool
	}{
		{"", retwis.Any, false},
		{"  ", retwis.Any, false},
		{"-", retwis.Any, false},
		{"100-10000", retwis.Range{Min: 100, Max: 10000}, false},
		{"100–10,000", retwis.Range{Min: 100, Max: 10000}, false},
		{"1_000-", retwis.Range{Min: 1000, Max: -1}, false},
		{"-50", retwis.Range{Min: 0, Max: 50}, false},
		{" 7 ", retwis.Range{Min: 7, Max: 7}, false},
		{"5 - 9", retwis.Range{Min: 5, Max: 9}, false},
		{"0", retwis.Range{Min: 0, Max: 0}, false},
		{"9-5", retwis.Range{}, true},
		{"ten", retwis.Range{}, true},
		{"1-2-3", retwis.Range{}, true},
		{"+5", retwis.Range{}, true},
		{"5-+6", retwis.Range{}, true},
		{"1e3", retwis.Range{}, true},
		{",", retwis.Range{}, true},
		{"99999999999999999999", retwis.Range{}, true},
		{"1-99999999999999999999999999999999999999999", retwis.Range{}, true},
	} {
		got, err := retwis.ParseRange(c.in)
		if (err != nil) != c.bad || (!c.bad && got != c.want) {
			t.Errorf("ParseRange(%q) = %+v, %v", c.in, got, err)
		}
		if err != nil && retwis.ErrorKind(err) != retwis.Invalid {
			t.Errorf("ParseRange(%q): error of kind %v", c.in, retwis.ErrorKind(err))
		}
	}
}

// FuzzParseRange checks that any text either is refused as Invalid or
// gives a range that is in order and reads back the same.
func FuzzParseRange(f *testing.F) {
	for _, s := range []string{"", "1-2", "-5", "5-", "10,000–20_000", "x", "9-1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := retwis.ParseRange(s)
		if err != nil {
			if retwis.ErrorKind(err) != retwis.Invalid {
				t.Fatalf("%q: %v", s, err)
			}
			return
		}
		if r.Min < 0 || (r.Max >= 0 && r.Max < r.Min) || r.Max < -1 {
			t.Fatalf("%q gave %+v", s, r)
		}
		if back, err := retwis.ParseRange(r.String()); err != nil || back != r {
			t.Fatalf("%q gave %+v, which reads back as %+v, %v", s, r, back, err)
		}
	})
}

func TestParseDay(t *testing.T) {
	if d, err := retwis.ParseDay(" 2026-11-24 ", "x"); err != nil || d.Format("2006-01-02") != "2026-11-24" {
		t.Fatalf("got %v, %v", d, err)
	}
	if d, err := retwis.ParseDay("", "x"); err != nil || !d.IsZero() {
		t.Fatalf("empty: %v, %v", d, err)
	}
	for _, s := range []string{"24/11/2026", "2026-13-01", "0001-01-01", "yesterday"} {
		if _, err := retwis.ParseDay(s, "Joined"); retwis.ErrorKind(err) != retwis.Invalid {
			t.Errorf("ParseDay(%q) = %v", s, err)
		}
	}
}
