package retwis_test

import (
	"cmp"
	"errors"
	"fmt"
	"strings"
	"testing"
	"unicode"

	"github.com/retwis/retwis"
)

func TestValidateUsername(t *testing.T) {
	for _, tc := range []struct {
		name string
		ok   bool
	}{
		{"a", true}, {"Alice_99", true}, {strings.Repeat("x", 32), true},
		{"", false}, {strings.Repeat("x", 33), false}, {"a b", false}, {"a-b", false},
		{"<script>", false}, {"ünï", false}, {"a\x00", false}, {"a.b", false},
	} {
		if err := retwis.ValidateUsername(tc.name); (err == nil) != tc.ok {
			t.Errorf("ValidateUsername(%q) = %v; want ok=%v", tc.name, err, tc.ok)
		} else if err != nil && retwis.ErrorKind(err) != retwis.Invalid {
			t.Errorf("ValidateUsername(%q): kind %v", tc.name, retwis.ErrorKind(err))
		}
	}
}

func TestValidatePassword(t *testing.T) {
	for _, tc := range []struct {
		pw string
		ok bool
	}{
		{"12345678", true},
		{"ééééééée", true}, // 8 characters, 16 bytes
		{strings.Repeat("p", 128), true},
		{"1234567", false},
		{strings.Repeat("p", 129), false},
		{strings.Repeat("é", 65), false}, // 130 bytes
		{"1234567\xff", false},
	} {
		if err := retwis.ValidatePassword(tc.pw); (err == nil) != tc.ok {
			t.Errorf("ValidatePassword(%q) = %v; want ok=%v", tc.pw, err, tc.ok)
		}
	}
}

func TestValidateEmail(t *testing.T) {
	long := strings.Repeat("a", 64) + "@" + strings.Repeat("b", 185) + ".org" // 254 bytes
	for _, tc := range []struct {
		addr string
		ok   bool
	}{
		{"ann@example.org", true}, {"a.b+c@mail.example.co.uk", true}, {long, true},
		{"", false}, {"ann", false}, {"ann@", false}, {"@example.org", false}, {"ann@localhost", false},
		{"Ann <ann@example.org>", false}, {"<ann@example.org>", false}, {" ann@example.org", false},
		{"ann@exa mple.org", false}, {"x" + long, false},
	} {
		if err := retwis.ValidateEmail(tc.addr); (err == nil) != tc.ok {
			t.Errorf("ValidateEmail(%q) = %v; want ok=%v", tc.addr, err, tc.ok)
		} else if err != nil && retwis.ErrorKind(err) != retwis.Invalid {
			t.Errorf("ValidateEmail(%q): kind %v", tc.addr, retwis.ErrorKind(err))
		}
	}
}

func TestNormalizeStatus(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		ok       bool
	}{
		{"hello", "hello", true},
		// Line breaks are kept as "\n"; spaces ending lines and blank
		// lines beyond one in a row are dropped.
		{"  line one\nline two\r\nthree\rfour  ", "line one\nline two\nthree\nfour", true},
		{"a  \n\n\n \r\n\t\nb\n\nc\n", "a\n\nb\n\nc", true},
		{"\n\n  indented\n  kept", "indented\n  kept", true},
		{"nel\u0085", "nel", true}, {"a\u0085b", "", false}, {"a\vb", "", false},
		{"tab\tkept", "tab\tkept", true},
		{strings.Repeat("é", 500), strings.Repeat("é", 500), true},
		{"<script>", "<script>", true}, // stored as typed; escaped when shown
		{"", "", false}, {" \n ", "", false},
		{strings.Repeat("é", 501), "", false},
		{"bad\xffutf8", "", false}, {"nul\x00", "", false}, {"bell\a", "", false},
		{strings.Repeat("x", 100000), "", false},
		// Invisible characters alone are not a post.
		{"\u200b\u200b\u200b", "", false}, {"\u200d \ufeff\u2060", "", false},
		{"\u200e\u200f", "", false}, {"\u0301\u0301", "", false},
		{"\u200bhi\u200b", "\u200bhi\u200b", true}, {"🙂", "🙂", true}, {"…", "…", true},
		// Letters and symbols that show as nothing are not a post either.
		{"\u2800", "", false}, {"\u3164\u3164", "", false}, {"\u115f\u1160", "", false},
		{"\uffa0 \u2800\n\u3164", "", false}, {"\u17b4\u180e\u200c", "", false},
		{"\u2800x", "\u2800x", true}, {"한", "한", true},
		// Bidirectional controls are kept in posts (pages isolate them).
		{"\u202egnp.exe", "\u202egnp.exe", true},
		// 500 code points, whatever their UTF-16 length; a link counts
		// as 23, however long.
		{strings.Repeat("🙂", 500), strings.Repeat("🙂", 500), true}, {strings.Repeat("🙂", 501), "", false},
		{strings.Repeat("x", 476) + " https://example.com/" + strings.Repeat("p", 2000), strings.Repeat("x", 476) + " https://example.com/" + strings.Repeat("p", 2000), true},
		{strings.Repeat("x", 477) + " https://example.com/", "", false},
	} {
		got, err := retwis.NormalizeStatus(tc.in, retwis.DefaultMaxStatusLen)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("NormalizeStatus(%.20q) = %.20q, %v; want %.20q ok=%v", tc.in, got, err, tc.want, tc.ok)
		}
	}
}

// TestNormalizeStatusLimit: the limit is the instance's, and the
// refusal says it, how links count and how long the post is.
// TestNormalizePost: a content warning is made one line (each run of
// blanks one space, trimmed), blank is none, a control character is
// refused; it counts with the text against the limit, a link in it
// counting as 23 as in the text.
func TestNormalizePost(t *testing.T) {
	for _, tc := range []struct{ text, warning, body, cw, err string }{
		{text: "body", warning: " a\r\n\tb  c ", body: "body", cw: "a b c"},
		{text: "body", warning: " \u200b\n ", body: "body"},
		{text: "body", warning: "bell\a", err: "Content warnings may not contain control characters."},
		{text: strings.Repeat("x", 5), warning: strings.Repeat("w", 5), body: strings.Repeat("x", 5), cw: strings.Repeat("w", 5)},
		{text: strings.Repeat("x", 5), warning: strings.Repeat("w", 6), err: "Posts are at most 10 characters long, the content warning and the text together, a link counting as 23 (this one has 11)."},
		{text: "x", warning: strings.Repeat("w", 11), err: "Content warnings are at most 10 characters long (this one has 11)."},
		{text: "", warning: "cw", err: "Please write something to post."},
	} {
		body, cw, err := retwis.NormalizePost(tc.text, tc.warning, 10)
		if body != tc.body || cw != tc.cw || fmt.Sprint(err) != cmp.Or(tc.err, "<nil>") {
			t.Errorf("NormalizePost(%q, %q) = %q, %q, %v; want %q, %q, %q", tc.text, tc.warning, body, cw, err, tc.body, tc.cw, tc.err)
		}
	}
	if _, cw, err := retwis.NormalizePost("x", "see https://example.com/"+strings.Repeat("p", 100), 30); err != nil || retwis.StatusLength(cw) != 27 {
		t.Errorf("a warning with a link: %q, %v; want it taken, counting 27", cw, err)
	}
}

// TestNormalizeCaption: a post with pictures may have no text, but its
// warning is checked still; one without is NormalizePost's.
func TestNormalizeCaption(t *testing.T) {
	for _, tc := range []struct {
		text, warning string
		media         int
		body, cw, err string
	}{
		{text: " \n ", warning: " a  b ", media: 1, cw: "a b"},
		{text: "", media: 4},
		{text: "", warning: "bell\a", media: 1, err: "Content warnings may not contain control characters."},
		{text: " x ", warning: "w", media: 1, body: "x", cw: "w"},
		{text: strings.Repeat("x", 11), media: 1, err: "Posts are at most 10 characters long, a link counting as 23 (this one has 11)."},
		{text: "", err: "Please write something to post."},
	} {
		body, cw, err := retwis.NormalizeCaption(tc.text, tc.warning, 10, tc.media)
		if body != tc.body || cw != tc.cw || fmt.Sprint(err) != cmp.Or(tc.err, "<nil>") {
			t.Errorf("NormalizeCaption(%q, %q, %d) = %q, %q, %v; want %q, %q, %q", tc.text, tc.warning, tc.media, body, cw, err, tc.body, tc.cw, tc.err)
		}
	}
}

func TestNormalizeStatusLimit(t *testing.T) {
	if _, err := retwis.NormalizeStatus(strings.Repeat("é", 10), 10); err != nil {
		t.Errorf("10 characters of 10: %v", err)
	}
	_, err := retwis.NormalizeStatus(strings.Repeat("é", 11), 10)
	if want := "Posts are at most 10 characters long, a link counting as 23 (this one has 11)."; err == nil || err.Error() != want {
		t.Errorf("11 characters of 10: %v; want %q", err, want)
	}
}

// TestStatusLength: code points, a link counting as 23 wherever
// Entities finds one, and nowhere else.
func TestStatusLength(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int
	}{
		{"", 0}, {"hello", 5}, {"🙂🙂", 2}, {"e\u0301", 2}, {"👩\u200d💻", 3}, {"a\nb\n\nc", 6},
		{"https://example.com", 23}, {"see https://example.com/" + strings.Repeat("x", 100) + ".", 4 + 23 + 1},
		{"HTTP://A.B/c http://x.y", 23 + 1 + 23}, {"(https://go.dev/a_(b))", 1 + 23 + 1},
		{"xhttps://example.com", 20}, {"https://", 8}, {"ftp://example.com", 17},
		{"#https://example.com", 20}, {"@http://x.y", 11}, {"line\nhttps://a.b\nline", 5 + 23 + 5},
	} {
		if got := retwis.StatusLength(tc.in); got != tc.want {
			t.Errorf("StatusLength(%q) = %d; want %d", tc.in, got, tc.want)
		}
	}
}

func TestValidName(t *testing.T) {
	for _, tc := range []struct{ in, err string }{
		{"My app", ""}, {"日本語", ""}, {strings.Repeat("é", 100), ""},
		{"", "1 to 100 characters"}, {strings.Repeat("é", 101), "1 to 100 characters"},
		{"bad\xff", "valid UTF-8"}, {"a\x00b", "control characters"}, {"a\nb", "control characters"},
		{"\u2800\u3164", "letter, digit or symbol"}, {"\u200b", "letter, digit or symbol"},
		{"\u202egnp.exe", "direction controls"}, {"a\u200eb", "direction controls"},
		{"a\u061cb", "direction controls"}, {"a\u2067b\u2069", "direction controls"}, {"\u202ax\u202c", "direction controls"},
	} {
		err := retwis.ValidName(tc.in, 100, "The name")
		if (err == nil) != (tc.err == "") || err != nil && (!strings.Contains(err.Error(), tc.err) ||
			!strings.HasPrefix(err.Error(), "The name") || retwis.ErrorKind(err) != retwis.Invalid) {
			t.Errorf("ValidName(%q) = %v; want %q", tc.in, err, tc.err)
		}
	}
}

func TestIsBidiControl(t *testing.T) {
	bidi := "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
	for _, r := range bidi {
		if !retwis.IsBidiControl(r) {
			t.Errorf("U+%04X is a bidirectional control", r)
		}
	}
	for _, r := range "a\u200b\u200d\u2029\u2065\u206a\u0627" {
		if retwis.IsBidiControl(r) {
			t.Errorf("U+%04X is no bidirectional control", r)
		}
	}
}

func TestFoldUsername(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		shaped   bool
	}{
		{"Alice_1", "alice_1", true},
		{"alİce", "al\u0130ce", false},        // not folded into "alice"
		{"\u212aelvin", "\u212aelvin", false}, // the Kelvin sign is not a "k"
		{"ALICE", "alice", true},
		{"", "", false},
	} {
		if got := retwis.FoldUsername(tc.in); got != tc.want {
			t.Errorf("FoldUsername(%q) = %q; want %q", tc.in, got, tc.want)
		}
		if got := retwis.IsUsernameShaped(tc.in); got != tc.shaped {
			t.Errorf("IsUsernameShaped(%q) = %v; want %v", tc.in, got, tc.shaped)
		}
	}
}

func TestErrorKinds(t *testing.T) {
	err := fmt.Errorf("wrapped: %w", retwis.Errorf(retwis.Conflict, "taken"))
	if retwis.ErrorKind(err) != retwis.Conflict || retwis.ErrorMessage(err) != "taken" {
		t.Fatalf("kind %v, message %q", retwis.ErrorKind(err), retwis.ErrorMessage(err))
	}
	plain := errors.New("dial tcp: secret internals")
	if retwis.ErrorKind(plain) != retwis.Internal || strings.Contains(retwis.ErrorMessage(plain), "secret") {
		t.Fatal("an unclassified error must be Internal and must not leak its text")
	}
	cause := errors.New("cause")
	e := &retwis.Error{Kind: retwis.Unavailable, Message: "down", Err: cause}
	if !errors.Is(e, cause) || e.Error() != "down: cause" || retwis.Unavailable.String() != "unavailable" {
		t.Fatalf("Error() = %q", e.Error())
	}
}

func ExampleNormalizeStatus() {
	body, err := retwis.NormalizeStatus("  Hello,\r\nRedis!  ", retwis.DefaultMaxStatusLen)
	fmt.Printf("%q %v\n", body, err)
	_, err = retwis.NormalizeStatus("   ", retwis.DefaultMaxStatusLen)
	fmt.Println(retwis.ErrorKind(err), "-", err)
	// Output:
	// "Hello,\nRedis!" <nil>
	// invalid - Please write something to post.
}

// FuzzNormalizeStatus: a post taken shows something (not only blanks),
// is at most DefaultMaxStatusLen long as StatusLength counts, holds no
// control character but tabs and line breaks ("\n", never "\r"), no
// line that ends in a space and no two blank lines in a row, and is
// taken again as it is.
func FuzzNormalizeStatus(f *testing.F) {
	for _, s := range []string{"hello", "\u2800", "\u3164x", "a\r\nb", "\u202egnp.exe", "🙂", "a \n\n\n\rb\t", "x\nhttps://a.b/c\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		got, err := retwis.NormalizeStatus(in, retwis.DefaultMaxStatusLen)
		if err != nil {
			if retwis.ErrorKind(err) != retwis.Invalid {
				t.Fatalf("%q: %v is not Invalid", in, err)
			}
			return
		}
		if n := retwis.StatusLength(got); n == 0 || n > retwis.DefaultMaxStatusLen || strings.TrimFunc(got, blank) == "" {
			t.Fatalf("%q → %q: empty, blank or too long", in, got)
		}
		if strings.ContainsAny(got, "\r\v\f") || strings.Contains(got, "\n\n\n") || strings.Contains(got, " \n") || strings.Contains(got, "\t\n") {
			t.Fatalf("%q → %q: a line break not normalized", in, got)
		}
		if again, err := retwis.NormalizeStatus(got, retwis.DefaultMaxStatusLen); err != nil || again != got {
			t.Fatalf("%q → %q → %q, %v", in, got, again, err)
		}
	})
}

// FuzzNormalizeWarning: whatever it is given, NormalizeWarning refuses
// it as Invalid or returns none ("") or one line that shows something,
// at most DefaultMaxStatusLen long as StatusLength counts, with no
// control character, no blank at either end and no two blanks in a row,
// taken again as it is.
func FuzzNormalizeWarning(f *testing.F) {
	for _, s := range []string{"spoilers", " a\r\n\tb ", "\u200b", "\u3164x", "bell\a", "\u202egnp", "🙂  🙂"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		got, err := retwis.NormalizeWarning(in, retwis.DefaultMaxStatusLen)
		if err != nil {
			if retwis.ErrorKind(err) != retwis.Invalid {
				t.Fatalf("%q: %v is not Invalid", in, err)
			}
			return
		}
		if got == "" {
			return
		}
		if n := retwis.StatusLength(got); n > retwis.DefaultMaxStatusLen || strings.TrimFunc(got, blank) == "" ||
			strings.ContainsFunc(got, unicode.IsControl) || got != strings.Join(strings.Fields(got), " ") {
			t.Fatalf("%q → %q: blank, too long, not one line or holding a control character", in, got)
		}
		if again, err := retwis.NormalizeWarning(got, retwis.DefaultMaxStatusLen); err != nil || again != got {
			t.Fatalf("%q → %q → %q, %v", in, got, again, err)
		}
	})
}

// blank reports whether r shows as nothing: a space, a format or
// control character, a mark, or one of the blank letters.
func blank(r rune) bool {
	return unicode.In(r, unicode.Z, unicode.Cf, unicode.Cc, unicode.M) || strings.ContainsRune("\u115f\u1160\u17b4\u17b5\u180e\u2800\u3164\uffa0", r)
}
