package web_test

import (
	"net/url"
	"strings"
	"testing"
)

// TestContentWarning: the compose and reply forms have a spoiler field;
// a post with one shows it first, escaped, and its body behind a closed
// <details class="cw"> on home, the profile, the global timeline and
// its own page; a post without one shows no disclosure; a warning too
// long together with the text is refused saying so, both fields kept.
func TestContentWarning(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	b := s.browser()
	b.signUp("warner")
	field := `<input id="spoiler" name="spoiler" dir="auto" autocomplete="off" value="">`
	expect(t, b.get("/"), 200, field)
	redirects(t, b.post("/post", url.Values{"status": {"the <b>ending</b>"}, "spoiler": {`film "<script>" & more`}}), "/")
	redirects(t, b.post("/post", url.Values{"status": {"plain words"}}), "/")
	s.drain()
	want := `<details class="cw"><summary dir="auto">film &#34;&lt;script&gt;&#34; &amp; more</summary><div class="body" dir="auto"><p>the &lt;b&gt;ending&lt;/b&gt;</p></div></details>`
	id := s.exec("LINDEX", "timeline", "1")
	plain := "\n  " + `<div class="body" dir="auto"><p>plain words</p></div>` // on a line of its own: no disclosure
	for _, path := range []string{"/", "/u/warner", "/timeline", "/p/" + id} {
		page := b.get(path)
		expect(t, page, 200, want)
		if path != "/p/"+id {
			expect(t, page, 200, plain)
		}
		if strings.Contains(page.body, "<script>") || strings.Contains(page.body, "<details class=\"cw\" open") ||
			strings.Count(page.body, `<details class="cw">`) != 1 {
			t.Errorf("%s: want one closed disclosure, escaped:\n%s", path, page.body)
		}
	}
	expect(t, b.get("/p/"+id), 200, field)
	long := url.Values{"status": {strings.Repeat("x", 490)}, "spoiler": {strings.Repeat("w", 11)}}
	expect(t, b.post("/post", long), 400, "the content warning and the text together",
		strings.Repeat("x", 490)+"</textarea>", `name="spoiler" dir="auto" autocomplete="off" value="`+strings.Repeat("w", 11)+`"`)
}
