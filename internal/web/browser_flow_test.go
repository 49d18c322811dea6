package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/retwis/retwis"
)

// newTab returns a tab of the headless Chromium of ctx (see chrome) in
// a browser context of its own: its own cookies, as another person at
// another browser.
func newTab(t *testing.T, ctx context.Context) context.Context {
	t.Helper()
	tab, cancel := chromedp.NewContext(ctx, chromedp.WithNewBrowserContext())
	t.Cleanup(cancel)
	return tab
}

// signUpIn fills in the sign-up form of the welcome page.
func signUpIn(name string) chromedp.Action[chromedp.Void] {
	form := `form[action="/register"] `
	return chromedp.Steps(
		chromedp.SendKeys(chromedp.CSS(form+`input[name="username"]`), name),
		chromedp.SendKeys(chromedp.CSS(form+`input[name="password"]`), "password-"+name),
		chromedp.SendKeys(chromedp.CSS(form+`input[name="password2"]`), "password-"+name),
		chromedp.Click(chromedp.CSS(form+`button`)),
		chromedp.WaitVisible(chromedp.CSS(`form.compose`)),
	)
}

// TestSocialInBrowser: two people at two browsers sign up; one posts,
// the other follows them from their profile, finds the post on the home
// page and replies to it; the reply shows in the thread.
func TestSocialInBrowser(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	ctx, errs := chrome(t)
	bob, alice := newTab(t, ctx), newTab(t, ctx)
	err := chromedp.Do(bob,
		chromedp.Navigate(s.srv.URL+"/"), signUpIn("bob"),
		chromedp.SendKeys(`form.compose textarea`, "hello from bob"),
		chromedp.Click(`form.compose button`),
		chromedp.WaitVisible(`//article[contains(., "hello from bob")]`))
	if err != nil {
		t.Fatalf("bob signs up and posts: %v (console: %s)", err, errs)
	}
	err = chromedp.Do(alice,
		chromedp.Navigate(s.srv.URL+"/"), signUpIn("alice"),
		chromedp.Navigate(s.srv.URL+"/u/bob"),
		chromedp.Click(`form[action="/u/bob/follow"] button`),
		chromedp.WaitVisible(`form[action="/u/bob/unfollow"]`))
	if err != nil {
		t.Fatalf("alice follows bob: %v (console: %s)", err, errs)
	}
	s.drain()
	err = chromedp.Do(alice,
		chromedp.Navigate(s.srv.URL+"/"),
		chromedp.WaitVisible(`//article[contains(., "hello from bob")]`),
		chromedp.Click(`//article[contains(., "hello from bob")]//a[@class="reply"]`),
		chromedp.WaitVisible(`#reply textarea`),
		chromedp.SendKeys(`#reply textarea`, kb.End+"nice to meet you"), // after the @bob the form begins with, as a click there would
		chromedp.Click(`#reply button`),
		chromedp.WaitVisible(`//article[contains(., "nice to meet you")]`))
	if err != nil {
		t.Fatalf("alice replies: %v (console: %s)", err, errs)
	}
	thread, err := chromedp.Run(alice, chromedp.Text(chromedp.CSS(`main`)))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(thread, "hello from bob") || !strings.Contains(thread, "@bob nice to meet you\n") {
		t.Errorf("the reply's page shows:\n%s", thread)
	}

	if errs.String() != "" {
		t.Fatalf("the pages reported errors:\n%s", errs)
	}
}

// TestApproveAppInBrowser: an app without a redirect asks for access;
// the person logs in on the authorization page, approves, and copies
// the code it shows, which the app exchanges for a working token.
func TestApproveAppInBrowser(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	app, secret, err := s.st.CreateApp(t.Context(), retwis.App{Name: "Pocket Toot", RedirectURIs: []string{retwis.OutOfBand},
		Scopes: retwis.Scopes{"read", "write"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.st.Register(t.Context(), "owner", "password-owner"); err != nil {
		t.Fatal(err)
	}
	ctx, errs := chrome(t)
	q := url.Values{"client_id": {app.ClientID}, "redirect_uri": {retwis.OutOfBand}, "response_type": {"code"}, "scope": {"read"}}
	err = chromedp.Do(ctx,
		chromedp.Navigate(s.srv.URL+"/oauth/authorize?"+q.Encode()),
		chromedp.WaitVisible(`form[action="/login"] input[name="username"]`),
		chromedp.SendKeys(`form[action="/login"] input[name="username"]`, "owner"),
		chromedp.SendKeys(`form[action="/login"] input[name="password"]`, "password-owner"),
		chromedp.Click(`form[action="/login"] button`),
		chromedp.WaitVisible(chromedp.CSS(`form.decision`)))
	if err != nil {
		t.Fatalf("log in on the authorization page: %v (console: %s)", err, errs)
	}
	page, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`main`)))
	if err != nil {
		t.Fatal(err)
	}
	err = chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS(`form.decision button[value="approve"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#code`)))
	if err != nil {
		t.Fatalf("approve: %v (console: %s)", err, errs)
	}
	code, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`#code`)))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(page, "Pocket Toot") || !strings.Contains(page, "read your timelines") {
		t.Errorf("the authorization page says:\n%s", page)
	}
	tokenReq := url.Values{"grant_type": {"authorization_code"}, "code": {strings.TrimSpace(code)}, "client_id": {app.ClientID},
		"client_secret": {secret}, "redirect_uri": {retwis.OutOfBand}}
	resp, err := http.PostForm(s.srv.URL+"/oauth/token", tokenReq)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("exchanging the code shown: %s", resp.Status)
	}
	if errs.String() != "" {
		t.Fatalf("the pages reported errors:\n%s", errs)
	}
}
