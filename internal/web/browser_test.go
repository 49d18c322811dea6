package web_test

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/retwis/retwis/internal/testkit/syncbuf"
)

// browsers is how many tabs of the headless Chromium the tests use at
// once: the browser tests run beside the others, but on two cores more
// pages loading together only slow each other down.
var browsers = make(chan struct{}, 2)

// shared is the one headless Chromium of the package's tests, started
// by the first that needs it (see chrome) and closed by TestMain: each
// test has a browser context of its own in it (its own cookies and
// storage, as a browser of its own would), without the start of a
// browser each.
var shared struct {
	once  sync.Once
	ctx   context.Context // of the browser's first tab, which owns the browser
	close func()
	err   error
}

// TestMain runs the tests, then closes the shared Chromium.
func TestMain(m *testing.M) {
	code := m.Run()
	if shared.close != nil {
		shared.close()
	}
	os.Exit(code)
}

// sharedChrome returns the context of the shared Chromium, starting it
// the first time.
func sharedChrome() (context.Context, error) {
	shared.once.Do(func() {
		opts := append(chromedp.DefaultExecAllocatorOptions[:],
			chromedp.NoSandbox, // tests may run as root
			chromedp.Flag("disable-dev-shm-usage", true))
		alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
		ctx, cancel := chromedp.NewContext(alloc)
		shared.ctx, shared.close = ctx, func() { cancel(); cancelAlloc() }
		shared.err = chromedp.Do(ctx) // starts it
	})
	return shared.ctx, shared.err
}

// chrome returns the context of a tab of the headless Chromium (make test
// installs it) in a browser context of its own, closed with the test, and
// what the page's console reported as errors (a script the CSP refused
// shows there). It waits for its turn among the tabs open (see browsers).
func chrome(t *testing.T) (context.Context, *syncbuf.Buffer) {
	t.Helper()
	browsers <- struct{}{}
	t.Cleanup(func() { <-browsers })
	browser, err := sharedChrome()
	if err != nil {
		t.Fatalf("start headless Chromium: %v", err)
	}
	ctx, cancel := chromedp.NewContext(browser, chromedp.WithNewBrowserContext())
	t.Cleanup(cancel)
	ctx, cancel = context.WithTimeout(ctx, time.Minute)
	t.Cleanup(cancel)
	errs := &syncbuf.Buffer{}
	err = chromedp.Listen(ctx, func(ev any) {
		switch ev := ev.(type) {
		case *runtime.EventExceptionThrown:
			fmt.Fprintf(errs, "%s at %s:%d\n", ev.ExceptionDetails.Text, ev.ExceptionDetails.URL, ev.ExceptionDetails.LineNumber)
		case *runtime.EventConsoleAPICalled:
			if ev.Type == runtime.ConsoleAPICalledTypeError {
				errs.Write([]byte("console error\n"))
			}
		}
	})
	if err != nil {
		t.Fatalf("open a tab of headless Chromium: %v", err)
	}
	return ctx, errs
}

// TestTagCompletionInBrowser types into the tag search box of the
// timeline page in a real browser: the page's script, allowed by its
// CSP, suggests the tags in use that begin with what is typed, the most
// used first, and searching for one opens its page.
func TestTagCompletionInBrowser(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	b := s.browser()
	b.signUp("typist")
	for _, body := range []string{"#Café", "#cafeteria", "#cafeteria again", "#tea"} {
		b.post("/post", url.Values{"status": {body}})
	}
	s.drain()
	ctx, errs := chrome(t)
	err := chromedp.Do(ctx,
		chromedp.Navigate(s.srv.URL+"/timeline"),
		chromedp.WaitVisible(chromedp.ID("tag-q")),
		chromedp.SendKeys(chromedp.ID("tag-q"), "CAF"))
	if err != nil {
		t.Fatalf("type into the search box: %v (console: %s)", err, errs)
	}
	suggested, err := chromedp.Run(ctx, chromedp.Poll[[]string](`(() => {
		const tags = Array.from(document.querySelectorAll("#tag-suggestions option"), o => o.value);
		return tags.length >= 2 ? tags : null;
	})()`, chromedp.WithPollingTimeout(20*time.Second)))
	if err != nil {
		t.Fatalf("no suggestions appeared: %v (console: %s)", err, errs)
	}
	err = chromedp.Do(ctx,
		chromedp.SetValue(chromedp.ID("tag-q"), "café"),
		chromedp.Submit(chromedp.ID("tag-q")),
		chromedp.WaitVisible(chromedp.CSS("svg.activity")))
	if err != nil {
		t.Fatalf("search: %v (console: %s)", err, errs)
	}
	location, err := chromedp.Run(ctx, chromedp.Location())
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(suggested, []string{"cafeteria", "Café"}) {
		t.Fatalf("suggestions for CAF = %q; want the most used first", suggested)
	}
	if !strings.HasSuffix(location, "/tag/Caf%C3%A9") {
		t.Fatalf("searching for café went to %s", location)
	}
	if errs.String() != "" {
		t.Fatalf("the page reported errors:\n%s", errs)
	}
}

// TestPeopleCompletionInBrowser types a name without its accent into the
// search box of every page: the script suggests the people it finds, the
// most followed first, with their display names, and searching lists
// them on /search.
func TestPeopleCompletionInBrowser(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	named := map[string]string{"jose": "José Núñez", "josefina": "Josefina", "joe": "Joe"}
	ids := map[string]int64{}
	for name, display := range named {
		u, _, err := s.st.Register(t.Context(), name, "password1")
		if err != nil {
			t.Fatal(err)
		}
		if err := s.st.SetAbout(t.Context(), u.ID, display, ""); err != nil {
			t.Fatal(err)
		}
		ids[name] = u.ID
	}
	if err := s.st.Follow(t.Context(), ids["joe"], ids["josefina"]); err != nil {
		t.Fatal(err)
	}
	ctx, errs := chrome(t)
	err := chromedp.Do(ctx,
		chromedp.Navigate(s.srv.URL+"/timeline"),
		chromedp.WaitVisible(chromedp.ID("people-q")),
		chromedp.SendKeys(chromedp.ID("people-q"), "JOSE"))
	if err != nil {
		t.Fatalf("type into the search box: %v (console: %s)", err, errs)
	}
	// Keys typed slowly may show the suggestions of "J" or "JO" first
	// (joe too): wait for those of a query that leaves joe out.
	suggested, err := chromedp.Run(ctx, chromedp.Poll[[]string](`(() => {
		const people = Array.from(document.querySelectorAll("#people-suggestions option"), o => o.value + " / " + o.label);
		return people.length >= 2 && people.every(p => p.startsWith("jose")) ? people : null;
	})()`, chromedp.WithPollingTimeout(20*time.Second)))
	if err != nil {
		t.Fatalf("no suggestions appeared: %v (console: %s)", err, errs)
	}
	if want := []string{"josefina / Josefina · 1 follower", "jose / José Núñez · 0 followers"}; !slices.Equal(suggested, want) {
		t.Fatalf("suggestions for JOSE = %q; want %q", suggested, want)
	}
	err = chromedp.Do(ctx,
		chromedp.Submit(chromedp.ID("people-q")),
		chromedp.WaitVisible(chromedp.CSS("ul.people li")))
	if err != nil {
		t.Fatalf("search: %v (console: %s)", err, errs)
	}
	listed, err := chromedp.Run(ctx, chromedp.Poll[[]string](`Array.from(document.querySelectorAll("ul.people .username"), a => a.textContent)`))
	if err != nil || !slices.Equal(listed, []string{"@josefina", "@jose"}) {
		t.Fatalf("the search page lists %q, %v", listed, err)
	}
	if errs.String() != "" {
		t.Fatalf("the page reported errors:\n%s", errs)
	}
}
