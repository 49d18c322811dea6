package retwis

import (
	"strings"
	"testing"
)

func TestParseFocus(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		x, y float64
		ok   bool
	}{
		{"", 0, 0, true},
		{"0.5,-0.25", 0.5, -0.25, true},
		{" -1 , 1 ", -1, 1, true},
		{"1.5,0", 0, 0, false},
		{"0", 0, 0, false},
		{"NaN,0", 0, 0, false},
		{"a,b", 0, 0, false},
	} {
		x, y, err := ParseFocus(tc.in)
		if (err == nil) != tc.ok || x != tc.x || y != tc.y {
			t.Errorf("ParseFocus(%q) = %v, %v, %v; want %v, %v, ok %v", tc.in, x, y, err, tc.x, tc.y, tc.ok)
		}
	}
}

func TestNormalizeDescription(t *testing.T) {
	t.Parallel()
	if d, err := NormalizeDescription("  a cat  "); err != nil || d != "a cat" {
		t.Errorf("got %q, %v", d, err)
	}
	if _, err := NormalizeDescription(strings.Repeat("é", MaxDescriptionChars)); err != nil {
		t.Errorf("%d characters refused: %v", MaxDescriptionChars, err)
	}
	if _, err := NormalizeDescription(strings.Repeat("é", MaxDescriptionChars+1)); ErrorKind(err) != Invalid {
		t.Errorf("%d characters: %v, want Invalid", MaxDescriptionChars+1, err)
	}
}

func TestAttachmentsRoundTrip(t *testing.T) {
	t.Parallel()
	as := []Attachment{{ID: 1 << 60, Owner: 7, Ext: "jpg", SmallExt: "jpg", Width: 1920, Height: 1080, Description: "a \"cat\"", FocusX: 0.5}}
	got := DecodeAttachments(EncodeAttachments(as))
	if len(got) != 1 || got[0] != as[0] {
		t.Fatalf("round trip: %+v", got)
	}
	if got[0].Path() != "/media/7/1152921504606846976/original.jpg" || got[0].SmallPath() != "/media/7/1152921504606846976/small.jpg" {
		t.Errorf("paths %s %s", got[0].Path(), got[0].SmallPath())
	}
	if DecodeAttachments("") != nil || DecodeAttachments("{") != nil || EncodeAttachments(nil) != "" {
		t.Error("empty or damaged values should decode to nothing")
	}
	c := Card{URL: "https://example.com/", Title: "Example"}
	if got := DecodeCard(EncodeCard(c)); got == nil || *got != c {
		t.Errorf("card round trip: %+v", got)
	}
	if DecodeCard("") != nil || DecodeCard(`{"t":"no url"}`) != nil {
		t.Error("a card without a URL should decode to nil")
	}
}

func FuzzParseFocus(f *testing.F) {
	for _, s := range []string{"", "0,0", "-1,1", "0.5,-0.25", "1e0,0", "NaN,0", "inf,0", ","} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		x, y, err := ParseFocus(s)
		if err != nil && ErrorKind(err) != Invalid {
			t.Fatalf("%q: an error of kind %v", s, ErrorKind(err))
		}
		if x < -1 || x > 1 || y < -1 || y > 1 || x != x || y != y {
			t.Fatalf("%q: focus %v, %v out of range", s, x, y)
		}
	})
}

func FuzzDecodeAttachments(f *testing.F) {
	f.Add(EncodeAttachments([]Attachment{{ID: 1, Owner: 2, Ext: "jpg", SmallExt: "jpg", Width: 3, Height: 4, Description: "d"}}))
	f.Add(`[{"id":"1"}]`)
	f.Add(`[{"id":1}]`)
	f.Fuzz(func(t *testing.T, s string) {
		as := DecodeAttachments(s)
		if again := DecodeAttachments(EncodeAttachments(as)); len(again) != len(as) {
			t.Fatalf("%q: %d attachments, %d once encoded again", s, len(as), len(again))
		}
	})
}
