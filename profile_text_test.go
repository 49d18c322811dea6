package retwis_test

import (
	"strings"
	"testing"

	"github.com/retwis/retwis"
)

func TestNormalizeDisplayName(t *testing.T) {
	for _, tc := range []struct {
		in, want, err string
	}{
		{"José Núñez", "José Núñez", ""},
		{"Jose\u0301", "José", ""}, // composed (NFC)
		{"  Ada \n\t Lovelace  ", "Ada Lovelace", ""},
		{"日本語の名前", "日本語の名前", ""},
		{"", "", ""},
		{"   ", "", ""},
		{strings.Repeat("é", 50), strings.Repeat("é", 50), ""},
		{strings.Repeat("e\u0301", 50), strings.Repeat("é", 50), ""}, // counted once composed
		{strings.Repeat("é", 51), "", "at most 50 characters long (this one has 51)"},
		{strings.Repeat("x", 1000), "", "at most 50 characters"},
		{"\u200b\u200d", "", "need a letter, digit or symbol"},
		{"bell\a", "", "control characters"},
		{"bad \xff", "", "valid UTF-8"},
		{"\u3164", "", "need a letter, digit or symbol"},
		{"\u2800 \u115f\u1160", "", "need a letter, digit or symbol"},
		{"Ada\u202e", "", "direction controls"},
		{"\u2066Ada\u2069", "", "direction controls"},
		{"عربي\u200f", "", "direction controls"},
	} {
		got, err := retwis.NormalizeDisplayName(tc.in)
		if got != tc.want || (err == nil) != (tc.err == "") || (err != nil && !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("NormalizeDisplayName(%q) = %q, %v; want %q, %q", tc.in, got, err, tc.want, tc.err)
		}
		if err != nil && retwis.ErrorKind(err) != retwis.Invalid {
			t.Errorf("NormalizeDisplayName(%q): error of kind %v; want Invalid", tc.in, retwis.ErrorKind(err))
		}
	}
	if got, err := retwis.NormalizeBio(strings.Repeat("b", 160)); err != nil || len(got) != 160 {
		t.Errorf("a bio of 160 characters: %q, %v", got, err)
	}
	if got, err := retwis.NormalizeBio("bio \u202ekept"); err != nil || got != "bio \u202ekept" {
		t.Errorf("a bio keeps its direction controls (pages isolate it): %q, %v", got, err)
	}
	if _, err := retwis.NormalizeBio(strings.Repeat("b", 161)); err == nil || !strings.Contains(err.Error(), "Bios are at most 160") {
		t.Errorf("a bio of 161 characters: %v", err)
	}
}

func FuzzNormalizeDisplayName(f *testing.F) {
	for _, s := range []string{"José", " a  b ", "\xff", "e\u0301", "\u200b", "a\u202eb", "\u3164"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		got, err := retwis.NormalizeDisplayName(in)
		if err != nil {
			return
		}
		again, err := retwis.NormalizeDisplayName(got)
		if err != nil || again != got {
			t.Fatalf("not idempotent: %q → %q → %q, %v", in, got, again, err)
		}
		if strings.ContainsFunc(got, retwis.IsBidiControl) {
			t.Fatalf("%q → %q: a direction control kept", in, got)
		}
		if strings.TrimSpace(got) != got || strings.Contains(got, "  ") {
			t.Fatalf("%q → %q: untrimmed or doubled spaces", in, got)
		}
	})
}
