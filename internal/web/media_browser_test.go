package web_test

import (
	"image/color"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/retwis/retwis/internal/testkit/must"
)

// TestPictureInBrowser: in a real browser, a picture chosen in the
// compose form with its alt text is posted (the form's script shows the
// next row once a file is chosen), and the home page shows it, loaded,
// with that alt text.
func TestPictureInBrowser(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	path := filepath.Join(t.TempDir(), "green.jpg")
	must.OK(t, os.WriteFile(path, photo(t, 640, 480, color.RGBA{0, 160, 0, 255}), 0o600))
	ctx, errs := chrome(t)
	hidden := `Array.from(document.querySelectorAll(".picture-row"), r => r.hidden)`
	err := chromedp.Do(ctx, chromedp.Navigate(s.srv.URL+"/"), signUpIn("photographer"))
	if err != nil {
		t.Fatalf("sign up: %v (console: %s)", err, errs)
	}
	if rows := evaluate[[]bool](t, ctx, hidden); !slices.Equal(rows, []bool{false, true, true, true}) {
		t.Errorf("the rows of pictures hidden before one is chosen: %v; want all but the first", rows)
	}
	err = chromedp.Do(ctx, chromedp.SendKeys(`form.compose textarea`, "a green field"),
		chromedp.SetUploadFiles(`#media1`, []string{path}),
		chromedp.WaitVisible(`#media2`),
		chromedp.SendKeys(`#alt1`, "a green square"),
		chromedp.Click(`form.compose button`),
		chromedp.WaitVisible(`article.post img[alt="a green square"]`))
	if err != nil {
		t.Fatalf("post a picture: %v (console: %s)", err, errs)
	}
	width, err := chromedp.Run(ctx, chromedp.Poll[float64](`(() => {
		const img = document.querySelector('article.post img[alt="a green square"]');
		return img.complete && img.naturalWidth > 0 ? img.naturalWidth : null; })()`))
	if err != nil || width != 400 {
		t.Fatalf("the picture shown is %v px wide, %v; want its small copy, 400 (console: %s)", width, err, errs)
	}
}
