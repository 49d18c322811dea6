package web_test

import (
	"net/url"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestFavouriteInBrowser: in a real browser, a reader presses ☆ on a
// post of the global timeline; the form takes them back to the
// timeline, where the post shows ★ and its count, and the Favourites
// page lists it.
func TestFavouriteInBrowser(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	author := s.browser()
	author.signUp("author")
	redirects(t, author.post("/post", url.Values{"status": {"press the star"}}), "/")
	s.drain()
	ctx, errs := chrome(t)
	fav := `article.post .actions button.fav`
	if err := chromedp.Do(ctx, chromedp.Navigate(s.srv.URL+"/"), signUpIn("reader"),
		chromedp.Navigate(s.srv.URL+"/timeline"), chromedp.WaitVisible(fav), chromedp.Click(fav),
		chromedp.WaitVisible(`article.post .actions button.fav.on`)); err != nil {
		t.Fatalf("favourite: %v (console: %s)", err, errs)
	}
	got, err := chromedp.Run(ctx, chromedp.Evaluate[[]any](`[location.pathname, document.querySelector("article.post .actions button.fav").textContent]`))
	if err != nil || len(got) != 2 || got[0] != "/timeline" || got[1] != "★ Favourited 1" {
		t.Errorf("after the click: %v, %v; want the timeline, the post favourited and counted", got, err)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(s.srv.URL+"/favourites"), chromedp.WaitVisible(`article.post .actions button.fav.on`)); err != nil {
		t.Errorf("the Favourites page: %v", err)
	}
	if e := errs.String(); e != "" {
		t.Errorf("the page's console reported errors: %s", e)
	}
}
