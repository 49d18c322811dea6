package web_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestDirectMessageInBrowser: in a real browser, alice writes to bob
// alone: she mentions him, chooses "direct" in the compose form's
// select and posts; her home shows the post labelled direct, and the
// Direct link of the navigation opens her Direct page with it. Bob finds
// it on his Direct page; carol, who follows alice, nowhere.
func TestDirectMessageInBrowser(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	bob, carol := s.browser(), s.browser()
	bob.signUp("bob")
	carol.signUp("carol")
	ctx, errs := chrome(t)
	if err := chromedp.Do(ctx, chromedp.Navigate(s.srv.URL+"/"), signUpIn("alice")); err != nil {
		t.Fatalf("sign up: %v (console: %s)", err, errs)
	}
	redirects(t, carol.post("/u/alice/follow", nil), "/u/alice")
	err := chromedp.Do(ctx,
		chromedp.SendKeys(`form.compose textarea`, "@bob psst, between us"),
		chromedp.SetValue(`form.compose select[name=visibility]`, "direct"),
		chromedp.Click(`form.compose button`),
		chromedp.WaitVisible(`article.post .visibility`))
	if err != nil {
		t.Fatalf("post: %v (console: %s)", err, errs)
	}
	label, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`article.post .visibility`)))
	if err != nil || label != "direct" {
		t.Errorf("the post's label: %q, %v; want direct", label, err)
	}
	err = chromedp.Do(ctx, chromedp.Click(`nav a[href="/direct"]`), chromedp.WaitVisible(`article.post`))
	if err != nil {
		t.Fatalf("the Direct page: %v (console: %s)", err, errs)
	}
	body, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`main`)))
	if err != nil || !strings.Contains(body, "psst, between us") {
		t.Errorf("alice's Direct page: %q, %v; want her post", body, err)
	}
	s.drain()
	expect(t, bob.get("/direct"), 200, "psst, between us")
	for _, path := range []string{"/", "/direct", "/u/alice", "/timeline"} {
		if page := carol.get(path); strings.Contains(page.body, "psst") {
			t.Errorf("carol finds alice's direct post on %s", path)
		}
	}
	if e := errs.String(); e != "" {
		t.Errorf("the page's console reported errors: %s", e)
	}
}
