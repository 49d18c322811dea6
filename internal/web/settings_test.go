package web_test

import (
	"net/url"
	"strings"
	"testing"
)

// TestSettings sets a display name and bio on the settings page: the
// profile shows them beside the username, escaped; clearing the name
// shows the username alone; a bad name or bio is refused with the reason,
// the form keeps what was typed, and nothing is written; the page needs a
// login (a visitor is sent to the welcome page).
func TestSettings(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	b := s.browser()
	b.signUp("jose")
	expect(t, b.get("/settings"), 200, `name="name" value=""`, `action="/settings"`)
	redirects(t, b.post("/settings", url.Values{"name": {"  José \n Núñez "}, "bio": {"Redis & <Go>"}}), "/u/jose")
	expect(t, b.get("/u/jose"), 200, `<h1><bdi>José Núñez</bdi> <span class="handle">@jose</span></h1>`, `<p class="bio" dir="auto">Redis &amp; &lt;Go&gt;</p>`)
	expect(t, b.get("/settings"), 200, `value="José Núñez"`, "Redis &amp; &lt;Go&gt;</textarea>")

	before := s.snapshot()
	for _, bad := range []struct {
		form url.Values
		want string
	}{
		{url.Values{"name": {strings.Repeat("é", 51)}, "bio": {"kept"}}, "at most 50 characters"},
		{url.Values{"name": {"ok"}, "bio": {strings.Repeat("b", 161)}}, "Bios are at most 160 characters"},
		{url.Values{"name": {"\u200b"}}, "need a letter, digit or symbol"},
		{url.Values{"name": {"bell\a"}}, "control characters"},
		{url.Values{"name": {"\u3164"}}, "need a letter, digit or symbol"},
		{url.Values{"name": {"Ada\u202egnp.exe"}}, "direction controls"},
	} {
		r := b.post("/settings", bad.form)
		expect(t, r, 400, bad.want)
		if name := bad.form.Get("name"); len(name) < 100 && !strings.Contains(r.body, `value="`+name+`"`) && !strings.ContainsAny(name, "\a\u200b\u3164\u202e") {
			t.Errorf("the refused form lost the name typed: %q", name)
		}
	}
	s.assertUnchanged(before)
	expect(t, b.get("/u/jose"), 200, "José Núñez")

	redirects(t, b.post("/settings", url.Values{"name": {""}, "bio": {""}}), "/u/jose")
	page := b.get("/u/jose")
	expect(t, page, 200, "<h1>jose</h1>")
	if strings.Contains(page.body, `class="bio"`) {
		t.Fatal("a cleared bio is still shown")
	}

	anon := s.browser()
	redirects(t, anon.get("/settings"), "/")
	redirects(t, anon.post("/settings", url.Values{"name": {"x"}}), "/")
}
