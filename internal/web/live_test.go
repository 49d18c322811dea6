package web_test

import (
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/retwis/retwis/internal/testkit/must"
	"github.com/retwis/retwis/internal/web"
)

// waitListening waits until Redis has n subscribed stream channels.
func (s *site) waitListening(n int) {
	s.t.Helper()
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		chans, err := s.raw.Do(s.t.Context(), s.raw.B().PubsubShardchannels().Build()).AsStrSlice()
		if err == nil && len(chans) == n {
			return
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("Redis has %d subscribed channels (%v); want %d", len(chans), err, n)
		}
	}
}

// liveNotice returns an action that waits until the page's live notice
// says want.
func liveNotice(want string) chromedp.Action[chromedp.Void] {
	return chromedp.Poll[chromedp.Void](fmt.Sprintf(`(() => {
		const box = document.querySelector(".live");
		return !box.hidden && box.textContent === %q;
	})()`, want), chromedp.WithPollingTimeout(20*time.Second))
}

// TestLiveHomeInBrowser: a reader's home page, open in a real browser,
// tells them of the posts of those they follow as they come ("1 new
// post", a link that reloads the page), forgets one deleted meanwhile,
// and after the reload shows them, with nothing new; a tag's page, open
// by someone logged out, tells of the posts with the tag.
func TestLiveHomeInBrowser(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	ctx := t.Context()
	author, _, err := s.st.Register(ctx, "author", "password1")
	if err != nil {
		t.Fatal(err)
	}
	reader, _, err := s.st.Register(ctx, "reader", "password1")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.st.Follow(ctx, reader.ID, author.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.st.CreatePost(ctx, author.ID, "a #live post before the pages open"); err != nil {
		t.Fatal(err)
	}
	s.drain()
	tab, errs := chrome(t)
	login := `form[action="/login"] `
	err = chromedp.Do(tab,
		chromedp.Navigate(s.srv.URL+"/"),
		chromedp.SendKeys(chromedp.CSS(login+`input[name="username"]`), "reader"),
		chromedp.SendKeys(chromedp.CSS(login+`input[name="password"]`), "password1"),
		chromedp.Click(chromedp.CSS(login+`button`)),
		chromedp.WaitVisible(chromedp.CSS(`form.compose`)))
	if err != nil {
		t.Fatalf("open the home page: %v (console: %s)", err, errs)
	}
	tag := newTab(t, tab)
	if err := chromedp.Do(tag, chromedp.Navigate(s.srv.URL+"/tag/Live"), chromedp.WaitReady(chromedp.CSS(`.live`))); err != nil {
		t.Fatalf("open the tag's page: %v (console: %s)", err, errs)
	}
	s.waitListening(3) // the reader's stream, the revocations of their session, and the tag's
	hidden, err := chromedp.Run(tab, chromedp.Evaluate[bool](`document.querySelector(".live").hidden`))
	if err != nil || !hidden {
		t.Fatalf("the live notice shows before anything came (%v)", err)
	}

	first, err := s.st.CreatePost(ctx, author.ID, "the first #live post")
	if err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(tab, liveNotice("1 new post")); err != nil {
		t.Fatalf("no notice of the first post: %v (console: %s)", err, errs)
	}
	if err := chromedp.Do(tag, liveNotice("1 new post")); err != nil {
		t.Fatalf("no notice of the first post on the tag's page: %v (console: %s)", err, errs)
	}
	second, err := s.st.CreatePost(ctx, author.ID, "the second live post")
	if err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(tab, liveNotice("2 new posts")); err != nil {
		t.Fatalf("no notice of the second post: %v (console: %s)", err, errs)
	}
	if err := s.st.DeletePost(ctx, author.ID, first.ID); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(tab, liveNotice("1 new post")); err != nil {
		t.Fatalf("the deleted post is still counted: %v (console: %s)", err, errs)
	}
	s.drain()
	err = chromedp.Do(tab,
		chromedp.Click(chromedp.CSS(`.live a`)),
		chromedp.WaitVisible(chromedp.ID(fmt.Sprint("p", second.ID))))
	if err != nil {
		t.Fatalf("follow the notice: %v (console: %s)", err, errs)
	}
	hidden, err = chromedp.Run(tab, chromedp.Evaluate[bool](`document.querySelector(".live").hidden`))
	if err != nil || !hidden {
		t.Fatalf("the reloaded page still shows the notice (%v)", err)
	}
	if errs.String() != "" {
		t.Fatalf("the page reported errors:\n%s", errs)
	}
}

// TestLivePlaceholders: the timelines' first pages name their streams
// (hidden until the script has news); older pages, and a tag's page of
// one day, have nothing to be told.
func TestLivePlaceholders(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	b := s.browser()
	b.signUp("writer")
	for i := range web.PageSize + 1 {
		b.post("/post", url.Values{"status": {fmt.Sprint("#Café post ", i)}})
	}
	s.drain()
	home := b.get("/")
	expect(t, home, 200, `<p class="live" role="status" data-stream="/api/v1/streaming/user" hidden></p>`)
	timeline := b.get("/timeline")
	expect(t, timeline, 200, `data-stream="/api/v1/streaming/public"`)
	tag := b.get("/tag/Caf%C3%A9")
	expect(t, tag, 200, `data-stream="/api/v1/streaming/hashtag?tag=Caf%C3%A9"`)
	day := time.Now().UTC().Format("20060102")
	newest := regexp.MustCompile(`id="p(\d+)"`).FindStringSubmatch(timeline.body)[1]
	for _, path := range []string{linkOf(home.body, "Older »"), "/timeline?before=" + newest, linkOf(tag.body, "Older »"),
		"/tag/Caf%C3%A9?day=" + day} {
		if page := b.get(path); strings.Contains(page.body, "data-stream") {
			t.Errorf("%s names a stream", path)
		}
	}
}

// unreadCount returns an action that waits until the navigation's
// unread count says want.
func unreadCount(want string) chromedp.Action[chromedp.Void] {
	return chromedp.Poll[chromedp.Void](fmt.Sprintf(`(() => {
		const count = document.querySelector('a[href="/notifications"] .unread-count');
		return count !== null && count.textContent === %q;
	})()`, want), chromedp.WithPollingTimeout(20*time.Second))
}

// TestLiveUnreadInBrowser: while bob watches his home page in a real
// browser, alice mentions him from hers, twice: the unread count in his
// navigation goes up each time without a reload, and his notifications
// page shows what she wrote, under her display name.
func TestLiveUnreadInBrowser(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	ctx, errs := chrome(t)
	bob, alice := newTab(t, ctx), newTab(t, ctx)
	if err := chromedp.Do(bob, chromedp.Navigate(s.srv.URL+"/"), signUpIn("bob")); err != nil {
		t.Fatalf("bob signs up: %v (console: %s)", err, errs)
	}
	s.waitListening(2) // bob's stream and the revocations of his session
	counted, err := chromedp.Run(bob, chromedp.Evaluate[bool](`document.querySelector(".unread-count") !== null`))
	if err != nil || counted {
		t.Fatalf("an unread count before anything came (%v)", err)
	}
	if err := chromedp.Do(alice, chromedp.Navigate(s.srv.URL+"/"), signUpIn("alice")); err != nil {
		t.Fatalf("alice signs up: %v (console: %s)", err, errs)
	}
	uid := must.Value(s.st.UserID(t.Context(), "alice"))(t)
	must.OK(t, s.st.SetAbout(t.Context(), uid, "Alice Liddell", ""))
	for i, want := range []string{"1", "2"} {
		err := chromedp.Do(alice,
			chromedp.SendKeys(`form.compose textarea`, fmt.Sprint("hello @bob, number ", i)),
			chromedp.Click(`form.compose button`),
			chromedp.WaitVisible(fmt.Sprintf(`//article[contains(., "number %d")]`, i)))
		if err != nil {
			t.Fatalf("alice mentions bob: %v (console: %s)", err, errs)
		}
		if err := chromedp.Do(bob, unreadCount(want)); err != nil {
			t.Fatalf("the unread count did not become %s: %v (console: %s)", want, err, errs)
		}
	}
	err = chromedp.Do(bob, chromedp.Click(`a[href="/notifications"]`),
		chromedp.WaitVisible(`//article[contains(@class, "note")]//article[contains(., "hello @bob, number 1")]`))
	if err != nil {
		t.Fatalf("bob's notifications: %v (console: %s)", err, errs)
	}
	shown, err := chromedp.Run(bob, chromedp.Evaluate[string](`document.querySelector(".note .author").textContent`))
	if want := "Alice Liddell @alice"; err != nil || shown != want {
		t.Errorf("the newest notification's author shows %q, %v; want %q", shown, err, want)
	}
	if errs.String() != "" {
		t.Fatalf("the pages reported errors:\n%s", errs)
	}
}
