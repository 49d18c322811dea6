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
// sideways, Notifications and its count in sight), the first key press
// reaches the skip link, shown, which leads to the compose box, the
// focus outline of the bar's links is not cut off by their scrolling
// row, and the global timeline shows its posts before its cards. Then
// every text of the welcome, home, global timeline, tag (its chart),
// profile, notifications, settings and admin pages, the danger buttons,
// a content warning and a display name among them, is measured against
// its background (WCAG contrast, at least 4.5:1), and every form field
// stands out from its surroundings by its border or its background (at
// least 3:1), in the light theme and in the dark one, which the
// browser's preference chooses. Last, on a desktop 900 pixels wide, the
// bar's links fit in one row too.
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
	checkBar(t, ctx, phoneWidth, phoneHeight)
	checkSkipLink(t, ctx)
	checkFocusRing(t, ctx)
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
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(900, 1000), chromedp.Navigate(s.srv.URL+"/"), chromedp.WaitVisible(`form.compose`)); err != nil {
		t.Fatalf("the home page on a desktop: %v", err)
	}
	checkBar(t, ctx, 900, 1000)
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

// checkBar checks the navigation bar of the page of ctx, a viewport of
// width×height: its links in one row, the whole bar (the brand and the
// search box, then the links) at most two rows, an eighth of the
// screen, the link to the notifications in sight (not scrolled away),
// and nothing wider than the screen.
func checkBar(t *testing.T, ctx context.Context, width, height int) {
	t.Helper()
	bar := evaluate[struct {
		Rows                int
		Bar, Link, Notified float64
		Width, Viewport     int
	}](t, ctx, `(() => {
		const links = [...document.querySelectorAll("header.bar nav > *")];
		return {rows: new Set(links.map(e => Math.round(e.getBoundingClientRect().top))).size,
			bar: document.querySelector("header.bar").getBoundingClientRect().height,
			link: links[0].getBoundingClientRect().height,
			notified: document.querySelector('header.bar a[href="/notifications"]').getBoundingClientRect().right,
			width: document.documentElement.scrollWidth, viewport: innerWidth};
	})()`)
	if bar.Rows != 1 || bar.Bar > float64(height)/8 || bar.Width > bar.Viewport || bar.Notified > float64(bar.Viewport) {
		t.Errorf("at %dx%d the bar's links take %d rows, the bar %.0fpx (a link %.0fpx), the page %dpx wide, Notifications end at %.0fpx; want one row, at most %dpx, no wider than %dpx, Notifications in sight",
			width, height, bar.Rows, bar.Bar, bar.Link, bar.Width, bar.Notified, height/8, bar.Viewport)
	}
}

// checkFocusRing presses Tab on the home page of ctx, fresh, until the
// first link of the bar's row of links has the focus (after the skip
// link and the brand): it must show a focus outline, whole within the
// row, which hides what overflows it.
func checkFocusRing(t *testing.T, ctx context.Context) {
	t.Helper()
	if err := chromedp.Do(ctx, chromedp.Reload(), chromedp.WaitVisible(`form.compose`),
		chromedp.KeyEvent(kb.Tab), chromedp.KeyEvent(kb.Tab), chromedp.KeyEvent(kb.Tab)); err != nil {
		t.Fatalf("press Tab: %v", err)
	}
	ring := evaluate[struct {
		Focused, Style string
		Width          float64
		Inside         bool
	}](t, ctx, `(() => {
		const e = document.activeElement, s = getComputedStyle(e), nav = e.closest("header.bar nav");
		const w = parseFloat(s.outlineWidth) + Math.max(0, parseFloat(s.outlineOffset)), r = e.getBoundingClientRect();
		const n = nav ? nav.getBoundingClientRect() : r;
		return {focused: e.getAttribute("href") || e.tagName, style: s.outlineStyle, width: parseFloat(s.outlineWidth),
			inside: !!nav && r.left - w >= n.left && r.top - w >= n.top && r.right + w <= n.right && r.bottom + w <= n.bottom};
	})()`)
	if ring.Focused != "/" || ring.Style == "none" || ring.Width < 1 || !ring.Inside {
		t.Errorf("the third Tab focuses %s, its outline %s %.0fpx, whole within the bar's row: %v; want the Home link, outlined, whole",
			ring.Focused, ring.Style, ring.Width, ring.Inside)
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
	err := chromedp.Do(ctx, preferScheme(theme), chromedp.Navigate(page), chromedp.WaitVisible(`footer`))
	if err != nil {
		t.Fatalf("%s in the %s theme: %v", page, theme, err)
	}
	got := evaluate[struct {
		Checked, Danger, Fields int
		Low, Faint              []string
		Background              float64
	}](t, ctx, contrastScript)
	if len(got.Low) > 0 || got.Checked < 10 {
		t.Errorf("%s in the %s theme: of %d texts, these are below 4.5:1: %q", page, theme, got.Checked, got.Low)
	}
	if len(got.Faint) > 0 || got.Fields < 1 {
		t.Errorf("%s in the %s theme: of %d form fields, these stand out from their surroundings below 3:1: %q", page, theme, got.Fields, got.Faint)
	}
	if dark != (got.Background < 0.1) {
		t.Errorf("%s in the %s theme: the page's background has a luminance of %.2f", page, theme, got.Background)
	}
	if got.Danger != dangers {
		t.Errorf("%s in the %s theme: %d danger buttons measured; want %d", page, theme, got.Danger, dangers)
	}
}

// preferScheme emulates the browser's prefers-color-scheme: "light" or
// "dark".
func preferScheme(scheme string) chromedp.Action[chromedp.Void] {
	prefer := []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}}
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{Features: prefer})
		return err
	})
}

// contrastScript measures the WCAG contrast of every text shown on the
// page (the texts of elements, the values of fields) against the first
// opaque background of its element or an ancestor, and of every form
// field's border and background against its surroundings (the field
// stands out by either, WCAG's non-text contrast): it returns how many
// texts it measured, how many of them were danger buttons, those below
// 4.5:1, how many fields it measured, those below 3:1 by both, and the
// relative luminance of the page's background.
const contrastScript = `(() => {
	const rgba = s => { const m = s.match(/[\d.]+/g).map(Number); return {c: m.slice(0, 3), a: m.length > 3 ? m[3] : 1}; };
	const lum = c => { const [r, g, b] = c.map(v => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; });
		return 0.2126 * r + 0.7152 * g + 0.0722 * b; };
	const background = e => { for (; e; e = e.parentElement) { const b = rgba(getComputedStyle(e).backgroundColor); if (b.a > 0) return b.c; }
		return [255, 255, 255]; };
	const ratio = (a, b) => { const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p); return (x + 0.05) / (y + 0.05); };
	const out = {checked: 0, danger: 0, low: [], fields: 0, faint: [], background: lum(background(document.body))};
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
	for (const e of document.querySelectorAll("input:not([type=hidden]):not([type=checkbox]), textarea, select")) {
		const r = e.getBoundingClientRect(), style = getComputedStyle(e);
		if (r.width <= 1 || r.height <= 1) continue;
		const around = background(e.parentElement), own = rgba(style.backgroundColor);
		const border = parseFloat(style.borderTopWidth) > 0 ? ratio(rgba(style.borderTopColor).c, around) : 1;
		const k = Math.max(border, own.a > 0 ? ratio(own.c, around) : 1);
		out.fields++;
		if (k < 3) out.faint.push(e.tagName.toLowerCase() + "#" + e.id + " " + k.toFixed(2));
	}
	return out;
})()`
