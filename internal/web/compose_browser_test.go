package web_test

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/retwis/retwis"
)

// counterCases are texts whose length the compose box's counter
// (static/counter.js) must count as the server does (retwis.StatusLength
// of the normalized text): emoji, combining marks, line breaks and the
// blanks dropped around them, links (23 each, with the sentence's
// punctuation and unmatched brackets outside them), and what looks like
// a link but is none or is part of a tag or mention.
var counterCases = []string{
	"", "hello", "🙂🙂🙂", "e\u0301te\u0301", "👩\u200d💻", "  two \n lines  ", "a\r\n\r\n\r\n\r\nb",
	"see https://example.com/" + strings.Repeat("x", 300) + ".", "(https://go.dev/a_(b)) and [http://x.y/z]]",
	"HTTPS://EXAMPLE.COM/café?q=1#f, then text", "xhttps://example.com", "https://", "ftp://example.com",
	"#https://example.com", "@http://x.y", "line\nhttps://a.b\nline", "#café #123 @bob_ @" + strings.Repeat("a", 33),
	"https://a.b/" + strings.Repeat("é", 1100), "<https://a.b/c>",
}

// TestComposeCounterInBrowser: in a real browser, the counter beside the
// compose box says what is left of a post as the server counts it, for
// every case of counterCases; the box has no maxlength, so it takes 500
// emoji (1,000 UTF-16 units), which the server publishes, and one
// character more, which the server refuses saying why, keeping the
// draft.
func TestComposeCounterInBrowser(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	ctx, errs := chrome(t)
	if err := chromedp.Do(ctx, chromedp.Navigate(s.srv.URL+"/"), signUpIn("counter")); err != nil {
		t.Fatalf("sign up: %v (console: %s)", err, errs)
	}
	// typeIn puts text in the compose box, as typing does, and returns
	// what the box holds and what its counter says.
	typeIn := func(text string) (took, left string) {
		t.Helper()
		js, _ := json.Marshal(text)
		got, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`(() => { const box = document.querySelector("form.compose textarea");
			box.value = `+string(js)+`; box.dispatchEvent(new Event("input"));
			return [box.value, document.querySelector("form.compose .counter").textContent]; })()`))
		if err != nil || len(got) != 2 {
			t.Fatalf("type into the compose box: %v (console: %s)", err, errs)
		}
		return got[0], got[1]
	}
	for _, text := range counterCases {
		normal, _ := retwis.NormalizeStatus(text, retwis.MaxStatusLenCeiling)
		want := strconv.Itoa(retwis.DefaultMaxStatusLen-retwis.StatusLength(normal)) + " left"
		if _, left := typeIn(text); left != want {
			t.Errorf("the counter says %q for %.60q; want %q", left, text, want)
		}
	}
	longest := strings.Repeat("🙂", retwis.DefaultMaxStatusLen)
	if took, left := typeIn(longest); took != longest || left != "0 left" {
		t.Errorf("the compose box took %d of %d emoji, and says %q", len([]rune(took)), retwis.DefaultMaxStatusLen, left)
	}
	if err := chromedp.Do(ctx, chromedp.Click(`form.compose button`), chromedp.WaitVisible(`article.post`)); err != nil {
		t.Fatalf("post: %v (console: %s)", err, errs)
	}
	shown, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`article.post .body`)))
	if err != nil || strings.TrimSpace(shown) != longest {
		t.Errorf("published %q, %v; want %d emoji", shown, err, retwis.DefaultMaxStatusLen)
	}
	tooLong := longest + "é"
	if _, left := typeIn(tooLong); left != "-1 left" {
		t.Errorf("one character too many: the counter says %q", left)
	}
	if err := chromedp.Do(ctx, chromedp.Click(`form.compose button`), chromedp.WaitVisible(`p.error`)); err != nil {
		t.Fatalf("post: %v (console: %s)", err, errs)
	}
	refusal, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`p.error`)))
	if err != nil || !strings.Contains(refusal, "at most 500 characters") {
		t.Errorf("a post one character too long: %q, %v; want the server's refusal", refusal, err)
	}
	if draft, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector("form.compose textarea").value`)); err != nil || draft != tooLong {
		t.Errorf("the draft refused: %v; the box holds %d characters, want %d", err, len([]rune(draft)), len([]rune(tooLong)))
	}
	if e := errs.String(); e != "" {
		t.Errorf("the page's console reported errors (a script the CSP refused?): %s", e)
	}
}
