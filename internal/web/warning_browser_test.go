package web_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestContentWarningInBrowser: in a real browser, the compose box's
// counter counts the content warning with the text, as the server does;
// the post shows its warning with the body hidden until the warning is
// clicked, which opens the disclosure without a script of the page's.
func TestContentWarningInBrowser(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	ctx, errs := chrome(t)
	if err := chromedp.Do(ctx, chromedp.Navigate(s.srv.URL+"/"), signUpIn("warned"),
		chromedp.SendKeys(`form.compose textarea`, "the ending"),
		chromedp.SendKeys(`form.compose input[name=spoiler]`, "  film  spoilers ")); err != nil {
		t.Fatalf("compose: %v (console: %s)", err, errs)
	}
	left, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`form.compose .counter`)))
	if want := "477 left"; err != nil || left != want { // 500 - "the ending" - "film spoilers"
		t.Errorf("the counter says %q, %v; want %q", left, err, want)
	}
	if err := chromedp.Do(ctx, chromedp.Click(`form.compose button`), chromedp.WaitVisible(`article.post details.cw summary`)); err != nil {
		t.Fatalf("post: %v (console: %s)", err, errs)
	}
	shown := func() (string, bool) {
		t.Helper()
		got, err := chromedp.Run(ctx, chromedp.Evaluate[[]any](`(() => { const d = document.querySelector("article.post details.cw");
			return [d.querySelector("summary").textContent, d.querySelector(".body").checkVisibility()]; })()`))
		if err != nil || len(got) != 2 {
			t.Fatalf("read the post: %v (console: %s)", err, errs)
		}
		visible, _ := got[1].(bool)
		return strings.TrimSpace(got[0].(string)), visible
	}
	if summary, visible := shown(); summary != "film spoilers" || visible {
		t.Errorf("before a click: the warning %q, the body visible %v; want the warning and the body hidden", summary, visible)
	}
	if err := chromedp.Do(ctx, chromedp.Click(`article.post details.cw summary`)); err != nil {
		t.Fatalf("click the warning: %v", err)
	}
	if _, visible := shown(); !visible {
		t.Errorf("after a click on the warning, the body is still hidden")
	}
	if e := errs.String(); e != "" {
		t.Errorf("the page's console reported errors: %s", e)
	}
}
