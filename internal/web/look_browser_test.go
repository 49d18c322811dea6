package web_test

import (
	"context"
	"net/url"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// The phone the look is tried on, in CSS pixels (an iPhone 12 to 15).
const phoneWidth, phoneHeight = 390, 844

// TestLookInBrowser tries the pages in a real browser as a person on a
// phone does: the bar takes two rows (its links one row that scrolls
// sideways), the first key press reaches the skip link, shown, which
// leads to the compose box, and the global timeline shows its posts
// before its cards. Then every text of the welcome, home, global
// timeline, tag (its chart), profile, notifications, settings and admin
// pages, the danger buttons, a content warning and a display name among
// them, is measured against its background (WCAG
// contrast, at least 4.5:1) in the light theme and in the dark one,
// which the browser's preference chooses.
func TestLookInBrowser(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	troll, reporter := s.browser(), s.browser()
	troll.signUp("troll")
	reporter.signUp("reporter")
	redirects(t, troll.post("/post", url.Values{"status": {"a post for the global timeline #look"}}), "/")
	redirects(t, troll.post("/post", url.Values{"status": {"behind a warning #look"}, "spoiler": {"a content warning"}}), "/")
	redirects(t, reporter.post("/report", url.Values{"user": {"troll"}, "reason": {"a troll"}}), "/u/troll?reported=1")
	s.drain()
	mod, _, err := s.st.Register(t.Context(), "mod", "password-mod")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.st.SetModerator(t.Context(), "cli:test", mod.ID, true); err != nil {
		t.Fatal(err)
	}
	redirects(t, troll.post("/settings", url.Values{"name": {"Troll Face"}}), "/u/troll")
	redirects(t, troll.post("/post", url.Values{"status": {"hello @mod"}}), "/") // a notification with its post
	s.drain()
	ctx, errs := chrome(t)
	err = chromedp.Do(ctx,
		chromedp.EmulateViewport(phoneWidth, phoneHeight, chromedp.EmulateMobile),
		chromedp.Navigate(s.srv.URL+"/"),
		chromedp.SendKeys(`form[action="/login"] input[name="username"]`, "mod"),
		chromedp.SendKeys(`form[action="/login"] input[name="password"]`, "password-mod"),
		chromedp.Click(`form[action="/login"] button`),
		chromedp.WaitVisible(`form.compose`))
	if err != nil {
		t.Fatalf("log in: %v (console: %s)", err, errs)
	}
	checkPhoneBar(t, ctx)
	checkSkipLink(t, ctx)
	checkTimelineOrder(t, ctx, s.srv.URL)
	pages := []struct {
		path    string
		dangers int // its danger buttons: Block; Delete my account; the admin page's Suspend @troll, Suspend and Delete
	}{{"/", 0}, {"/timeline", 0}, {"/tag/look", 0}, {"/u/troll", 1}, {"/notifications", 0}, {"/settings", 1}, {"/admin", 3}}
	visitor := newTab(t, ctx) // logged out: the welcome page's forms
	for _, dark := range []bool{false, true} {
		for _, p := range pages {
			checkContrast(t, ctx, s.srv.URL+p.path, dark, p.dangers)
		}
		checkContrast(t, visitor, s.srv.URL+"/", dark, 0)
	}
	if errs.String() != "" {
		t.Fatalf("the pages reported errors:\n%s", errs)
	}
}

// evaluate returns what expression gives on the page of ctx, failing
// the test if it cannot.
func evaluate[T any](t *testing.T, ctx context.Context, expression string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expression))
	if err != nil {
		t.Fatalf("evaluate %.60q: %v", expression, err)
	}
	return v
}

// checkPhoneBar checks the navigation bar of the page of ctx, at phone
// width: its links in one row, the whole bar (the brand and the search
// box, then the links) at most two rows, about an eighth of the screen,
// and nothing wider than the screen.
func checkPhoneBar(t *testing.T, ctx context.Context) {
	t.Helper()
	bar := evaluate[struct {
		Rows            int
		Bar, Link       float64
		Width, Viewport int
	}](t, ctx, `(() => {
		const links = [...document.querySelectorAll("header.bar nav > *")];
		return {rows: new Set(links.map(e => Math.round(e.getBoundingClientRect().top))).size,
			bar: document.querySelector("header.bar").getBoundingClientRect().height,
			link: links[0].getBoundingClientRect().height,
			width: document.documentElement.scrollWidth, viewport: innerWidth};
	})()`)
	if bar.Rows != 1 || bar.Bar > phoneHeight/8 || bar.Width > bar.Viewport {
		t.Errorf("at %dx%d the bar's links take %d rows, the bar %.0fpx (a link %.0fpx), the page %dpx wide; want one row, at most %dpx, no wider than %dpx",
			phoneWidth, phoneHeight, bar.Rows, bar.Bar, bar.Link, bar.Width, phoneHeight/8, bar.Viewport)
	}
}

// checkSkipLink presses Tab on the home page of ctx, fresh: the skip
// link takes the focus and shows; Enter on it puts the focus in the
// compose box.
func checkSkipLink(t *testing.T, ctx context.Context) {
	t.Helper()
	focused := `(() => { const e = document.activeElement, r = e.getBoundingClientRect();
		return e.tagName + "#" + e.id + "." + e.className + (r.top >= 0 && r.height > 1 && r.width > 1 ? " shown" : " hidden"); })()`
	if err := chromedp.Do(ctx, chromedp.Reload(), chromedp.WaitVisible(`form.compose`), chromedp.KeyEvent(kb.Tab)); err != nil {
		t.Fatalf("press Tab: %v", err)
	}
	if got := evaluate[string](t, ctx, focused); got != "A#.skip shown" {
		t.Errorf("the first Tab focuses %s; want the skip link, shown", got)
	}
	if err := chromedp.Do(ctx, chromedp.KeyEvent(kb.Enter)); err != nil {
		t.Fatalf("press Enter: %v", err)
	}
	if got := evaluate[string](t, ctx, focused); got != "TEXTAREA#status. shown" {
		t.Errorf("the skip link leads to %s; want the compose box", got)
	}
}

// checkTimelineOrder checks that the global timeline shows its first
// post above its cards (the trends, the latest users) at phone width.
func checkTimelineOrder(t *testing.T, ctx context.Context, site string) {
	t.Helper()
	if err := chromedp.Do(ctx, chromedp.Navigate(site+"/timeline"), chromedp.WaitVisible(`article.post`)); err != nil {
		t.Fatalf("the global timeline: %v", err)
	}
	order := evaluate[[]float64](t, ctx, `[document.querySelector("article.post"), document.querySelector("main .card")].map(e => e.getBoundingClientRect().top)`)
	if order[0] >= order[1] {
		t.Errorf("on the global timeline the first post is at %.0fpx, the first card at %.0fpx; want the post first", order[0], order[1])
	}
}

// checkContrast opens page in the light or the dark theme and measures
// every text shown against its background (the first opaque one of its
// element or an ancestor): each must be at least 4.5:1, the page's
// background must be of its theme, and its dangers danger buttons must
// be among the texts measured.
func checkContrast(t *testing.T, ctx context.Context, page string, dark bool, dangers int) {
	t.Helper()
	theme := "light"
	if dark {
		theme = "dark"
	}
	prefer := []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: theme}}
	err := chromedp.Do(ctx,
		chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
			_, err := cdp.Call(ctx, t, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{Features: prefer})
			return err
		}),
		chromedp.Navigate(page), chromedp.WaitVisible(`footer`))
	if err != nil {
		t.Fatalf("%s in the %s theme: %v", page, theme, err)
	}
	got := evaluate[struct {
		Checked, Danger int
		Low             []string
		Background      float64
	}](t, ctx, contrastScript)
	if len(got.Low) > 0 || got.Checked < 10 {
		t.Errorf("%s in the %s theme: of %d texts, these are below 4.5:1: %q", page, theme, got.Checked, got.Low)
	}
	if dark != (got.Background < 0.1) {
		t.Errorf("%s in the %s theme: the page's background has a luminance of %.2f", page, theme, got.Background)
	}
	if got.Danger != dangers {
		t.Errorf("%s in the %s theme: %d danger buttons measured; want %d", page, theme, got.Danger, dangers)
	}
}

// contrastScript measures the WCAG contrast of every text shown on the
// page (the texts of elements, the values of fields) against the first
// opaque background of its element or an ancestor: it returns how many
// it measured, how many of them were danger buttons, those below 4.5:1,
// and the relative luminance of the page's background.
const contrastScript = `(() => {
	const rgba = s => { const m = s.match(/[\d.]+/g).map(Number); return {c: m.slice(0, 3), a: m.length > 3 ? m[3] : 1}; };
	const lum = c => { const [r, g, b] = c.map(v => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; });
		return 0.2126 * r + 0.7152 * g + 0.0722 * b; };
	const background = e => { for (; e; e = e.parentElement) { const b = rgba(getComputedStyle(e).backgroundColor); if (b.a > 0) return b.c; }
		return [255, 255, 255]; };
	const ratio = (a, b) => { const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p); return (x + 0.05) / (y + 0.05); };
	const out = {checked: 0, danger: 0, low: [], background: lum(background(document.body))};
	for (const e of document.querySelectorAll("body *")) {
		const text = e.matches("input:not([type=hidden]):not([type=checkbox]), textarea") ||
			[...e.childNodes].some(n => n.nodeType === Node.TEXT_NODE && n.textContent.trim());
		const r = e.getBoundingClientRect();
		if (!text || r.width <= 1 || r.height <= 1 || r.bottom <= 0) continue; // not shown, or only to screen readers, or the skip link away
		const style = getComputedStyle(e), color = e instanceof SVGElement ? style.fill : style.color; // a chart's labels
		const k = ratio(rgba(color).c, background(e));
		out.checked++;
		if (e.matches("button.danger")) out.danger++;
		if (k < 4.5) out.low.push(e.tagName.toLowerCase() + "." + (e.getAttribute("class") || "") + " " + JSON.stringify((e.value || e.textContent).trim().slice(0, 30)) + " " + k.toFixed(2));
	}
	return out;
})()`
