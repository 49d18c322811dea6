package web_test

import (
	"net/url"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestBoostInBrowser: in a real browser, a person opens a post's page,
// boosts it with its action bar's button, comes back to the page
// offering to undo the boost (and counting it once the job ran), and
// finds the post on their profile under "boosted by" them; undoing it
// takes it off.
func TestBoostInBrowser(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	alice := s.browser()
	alice.signUp("alice")
	redirects(t, alice.post("/post", url.Values{"status": {"worth a boost"}}), "/")
	m := postIDPattern.FindStringSubmatch(alice.get("/u/alice").body)
	if m == nil {
		t.Fatal("alice's post is not on her profile")
	}
	path := "/p/" + m[1]
	ctx, errs := chrome(t)
	err := chromedp.Do(ctx,
		chromedp.Navigate(s.srv.URL+"/"), signUpIn("bob"),
		chromedp.Navigate(s.srv.URL+path),
		chromedp.Click(`.focus form[action="`+path+`/boost"] button`),
		chromedp.WaitVisible(`.focus form[action="`+path+`/unboost"] button[aria-pressed="true"]`),
		chromedp.Navigate(s.srv.URL+"/u/bob"),
		chromedp.WaitVisible(`//div[@class="boost"][contains(., "boosted by bob")]//article[contains(., "worth a boost")]`))
	if err != nil {
		t.Fatalf("bob boosts alice's post: %v (console: %s)", err, errs)
	}
	err = chromedp.Do(ctx,
		chromedp.Navigate(s.srv.URL+path),
		chromedp.Click(`.focus form[action="`+path+`/unboost"] button`),
		chromedp.WaitVisible(`.focus form[action="`+path+`/boost"] button[aria-pressed="false"]`))
	if err != nil {
		t.Fatalf("bob undoes the boost: %v (console: %s)", err, errs)
	}
	s.drain()
	if profile := alice.get("/u/bob").body; postIDPattern.MatchString(profile) {
		t.Errorf("bob's profile still shows the boost taken back")
	}
	if e := errs.String(); e != "" {
		t.Errorf("the page's console reported errors: %s", e)
	}
}
