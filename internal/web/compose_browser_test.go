package web_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/chromedp/chromedp"

	"github.com/retwis/retwis"
)

// TestComposeLimitInBrowser: the compose box of a real browser, which
// counts its maxlength in UTF-16 units, takes a post of
// retwis.MaxStatusLen emoji (two units each) and cuts what is typed
// beyond, and the server publishes it; a post of one-unit characters
// one too long passes the box, and the server refuses it saying why.
func TestComposeLimitInBrowser(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	ctx, errs := chrome(t)
	longest := strings.Repeat("🙂", retwis.MaxStatusLen)
	tooLong := strings.Repeat("é", retwis.MaxStatusLen+1)
	// typeIn types text into the compose box, as a paste does, and
	// returns what the box took.
	typeIn := func(text string) string {
		t.Helper()
		took, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(() => { const box = document.querySelector("form.compose textarea");
			box.focus(); box.select(); document.execCommand("insertText", false, "`+text+`"); return box.value; })()`))
		if err != nil {
			t.Fatalf("type into the compose box: %v (console: %s)", err, errs)
		}
		return took
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(s.srv.URL+"/"), signUpIn("emoji")); err != nil {
		t.Fatalf("sign up: %v (console: %s)", err, errs)
	}
	if took := typeIn(longest + longest); took != longest {
		t.Errorf("the compose box took %d emoji of %d typed; want %d", utf8.RuneCountInString(took), 2*retwis.MaxStatusLen, retwis.MaxStatusLen)
	}
	if err := chromedp.Do(ctx, chromedp.Click(`form.compose button`), chromedp.WaitVisible(`article.post`)); err != nil {
		t.Fatalf("post: %v (console: %s)", err, errs)
	}
	shown, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`article.post p.body`)))
	if err != nil || strings.TrimSpace(shown) != longest {
		t.Errorf("published %q, %v; want %d emoji", shown, err, retwis.MaxStatusLen)
	}
	if took := typeIn(tooLong); took != tooLong {
		t.Errorf("the compose box took %d characters of %d typed", utf8.RuneCountInString(took), retwis.MaxStatusLen+1)
	}
	if err := chromedp.Do(ctx, chromedp.Click(`form.compose button`), chromedp.WaitVisible(`p.error`)); err != nil {
		t.Fatalf("post: %v (console: %s)", err, errs)
	}
	refusal, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`p.error`)))
	if err != nil || !strings.Contains(refusal, "at most 280 characters") {
		t.Errorf("a post one character too long: %q, %v; want the server's refusal", refusal, err)
	}
}
