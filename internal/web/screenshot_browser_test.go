package web_test

import (
	"bytes"
	"cmp"
	"context"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/store/posts"
)

// The sizes of the README's pictures, in CSS pixels: a desktop (the
// pages' column, 40rem, with room on its sides) and a phone (see
// phoneWidth), whose pictures are taken at twice the pixels, as a
// phone's screen has them.
const (
	desktopWidth, desktopHeight = 900, 1000
	phoneScale                  = 2
)

// TestScreenshotsInBrowser takes the README's pictures when
// RETWIS_SCREENSHOTS names a directory (`make screenshot` names
// docs/screenshots), and is skipped otherwise, so as not to slow the
// tests: a small network (display names, a reply, favourites, boosts,
// a content warning, a followers-only post) seen by alice, as home.png
// (her home page on a desktop), phone.png (on a phone), post.png (a
// post's page with its content warning open, its action bar and who
// favourited it) and dark.png (the global timeline on a phone in the
// dark theme). Each is checked: a PNG of its viewport, not of one
// colour.
func TestScreenshotsInBrowser(t *testing.T) {
	dir := os.Getenv("RETWIS_SCREENSHOTS")
	if dir == "" {
		t.Skip("RETWIS_SCREENSHOTS names no directory to write the pictures to (make screenshot)")
	}
	t.Parallel()
	s := newSite(t)
	warned := seedNetwork(t, s)
	ctx, errs := chrome(t)
	err := chromedp.Do(ctx,
		chromedp.EmulateViewport(desktopWidth, desktopHeight),
		chromedp.Navigate(s.srv.URL+"/"),
		chromedp.SendKeys(`form[action="/login"] input[name="username"]`, "alice"),
		chromedp.SendKeys(`form[action="/login"] input[name="password"]`, "password-alice"),
		chromedp.Click(`form[action="/login"] button`),
		chromedp.WaitVisible(`//article[contains(., "narrator")]`))
	if err != nil {
		t.Fatalf("alice logs in: %v (console: %s)", err, errs)
	}
	shoot(t, ctx, filepath.Join(dir, "home.png"), desktopWidth, desktopHeight)
	post := retwis.PostPath(warned)
	err = chromedp.Do(ctx,
		chromedp.Navigate(s.srv.URL+post),
		chromedp.Click(`.focus details.cw summary`),
		chromedp.WaitVisible(`.focus details.cw .body`))
	if err != nil {
		t.Fatalf("the post's page, its warning opened: %v (console: %s)", err, errs)
	}
	shoot(t, ctx, filepath.Join(dir, "post.png"), desktopWidth, desktopHeight)
	phone := chromedp.EmulateViewport(phoneWidth, phoneHeight, chromedp.EmulateScale(phoneScale), chromedp.EmulateMobile)
	if err := chromedp.Do(ctx, phone, chromedp.Navigate(s.srv.URL+"/"), chromedp.WaitVisible(`article.post`)); err != nil {
		t.Fatalf("the home page on a phone: %v (console: %s)", err, errs)
	}
	shoot(t, ctx, filepath.Join(dir, "phone.png"), phoneScale*phoneWidth, phoneScale*phoneHeight)
	if err := chromedp.Do(ctx, preferScheme("dark"), chromedp.Navigate(s.srv.URL+"/timeline"), chromedp.WaitVisible(`article.post`)); err != nil {
		t.Fatalf("the global timeline on a phone, dark: %v (console: %s)", err, errs)
	}
	shoot(t, ctx, filepath.Join(dir, "dark.png"), phoneScale*phoneWidth, phoneScale*phoneHeight)
	if errs.String() != "" {
		t.Fatalf("the pages reported errors:\n%s", errs)
	}
}

// seedNetwork writes the network of the README's pictures, as its people
// would have made it, in the same order each time, and returns the id of
// carol's post behind a content warning: alice follows bob and carol;
// bob welcomes her and boosts dave's post (alice's home shows it, and no
// one to follow); carol posts behind a warning (favourited by alice and
// bob, boosted by bob, answered by alice) and for her followers only;
// carol answers bob's post, which alice and carol favourited.
func seedNetwork(t *testing.T, s *site) (warned int64) {
	t.Helper()
	ctx := t.Context()
	ids := map[string]int64{}
	for _, p := range [][2]string{{"alice", "Alice Martin"}, {"bob", "Bob Chen"}, {"carol", "Carol Díaz"}, {"dave", "Dave"}} {
		name := p[0]
		u, _, err := s.st.Register(ctx, name, "password-"+name)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.st.SetAbout(ctx, u.ID, p[1], ""); err != nil {
			t.Fatal(err)
		}
		ids[name] = u.ID
	}
	for _, f := range [][2]string{{"alice", "bob"}, {"alice", "carol"}, {"carol", "alice"}, {"bob", "carol"}} {
		if err := s.st.Follow(ctx, ids[f[0]], ids[f[1]]); err != nil {
			t.Fatal(err)
		}
	}
	publish := func(d posts.Draft) int64 {
		t.Helper()
		p, err := s.st.Publish(ctx, d)
		if err != nil {
			t.Fatalf("publish %q: %v", d.Text, err)
		}
		return p.Post.ID
	}
	hash := publish(posts.Draft{Author: ids["bob"], Text: "Each post is a Redis hash, each timeline a list, and a cluster holds as many as you like #redis"})
	golang := publish(posts.Draft{Author: ids["dave"], Text: "Go 1.26 is out: the release notes are a good read #golang"})
	warned = publish(posts.Draft{Author: ids["carol"], Warning: "Spoilers: the film we saw on Sunday",
		Text: "The twist at the end: the narrator was the database all along.\n\nI did not see it coming."})
	publish(posts.Draft{Author: ids["alice"], Text: "I saw it coming from the first scene!", InReplyTo: warned})
	publish(posts.Draft{Author: ids["carol"], Text: "And each tag page is a sorted set, so a page costs what it shows", InReplyTo: hash})
	publish(posts.Draft{Author: ids["bob"], Text: "@alice welcome! Tags like #golang have pages of their own, and the global timeline shows everyone's posts"})
	publish(posts.Draft{Author: ids["carol"], Text: "Lunch on Friday, anyone? The usual place at noon.", Visibility: retwis.Private})
	for _, m := range []struct {
		act func(context.Context, int64, int64) (retwis.Post, error)
		who string
		pid int64
	}{{s.st.Favourite, "alice", hash}, {s.st.Favourite, "carol", hash}, {s.st.Favourite, "alice", warned}, {s.st.Favourite, "bob", warned},
		{s.st.Boost, "bob", warned}, {s.st.Boost, "bob", golang}} {
		if _, err := m.act(ctx, ids[m.who], m.pid); err != nil {
			t.Fatalf("%s's mark on post %d: %v", m.who, m.pid, err)
		}
	}
	s.drain()
	return warned
}

// shoot takes a picture of the viewport of ctx, checks it is a PNG of
// width×height pixels not of one colour, and writes it to path in the
// 256 colours it uses most (a third of Chromium's PNG, which Go's best
// compression alone does not shrink).
func shoot(t *testing.T, ctx context.Context, path string, width, height int) {
	t.Helper()
	shot, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	img, err := png.Decode(bytes.NewReader(shot))
	if err != nil {
		t.Fatalf("the screenshot (%d bytes) is no PNG: %v", len(shot), err)
	}
	if b := img.Bounds(); b.Dx() != width || b.Dy() != height {
		t.Fatalf("the screenshot is %dx%d; want %dx%d", b.Dx(), b.Dy(), width, height)
	}
	colours := map[color.Color]bool{}
	for y := img.Bounds().Min.Y; y < img.Bounds().Max.Y; y += 7 {
		for x := img.Bounds().Min.X; x < img.Bounds().Max.X; x += 7 {
			colours[img.At(x, y)] = true
		}
	}
	if len(colours) < 10 {
		t.Fatalf("the screenshot has %d colours: a blank page?", len(colours))
	}
	var out bytes.Buffer
	if err := (&png.Encoder{CompressionLevel: png.BestCompression}).Encode(&out, mostUsedColours(img)); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
		t.Fatalf("RETWIS_SCREENSHOTS: %v", err)
	}
	t.Logf("wrote %s (%d bytes; Chromium's %d)", path, out.Len(), len(shot))
}

// mostUsedColours returns img in the 256 colours it uses most (in the
// same order for the same picture, so that it is written alike), each
// other colour (the rarer shades of antialiased text) replaced with the
// nearest of them.
func mostUsedColours(img image.Image) *image.Paletted {
	b := img.Bounds()
	used := map[color.Color]int{}
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			used[img.At(x, y)]++
		}
	}
	palette := slices.SortedFunc(maps.Keys(used), func(c, d color.Color) int {
		return cmp.Or(cmp.Compare(used[d], used[c]), cmp.Compare(rgba(c), rgba(d)))
	})
	out := image.NewPaletted(b, palette[:min(256, len(palette))])
	draw.Draw(out, b, img, b.Min, draw.Src)
	return out
}

// rgba is c as one number, to order colours by.
func rgba(c color.Color) uint64 {
	r, g, b, a := c.RGBA()
	return uint64(r)<<48 | uint64(g)<<32 | uint64(b)<<16 | uint64(a)
}
