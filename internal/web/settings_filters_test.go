package web_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

// TestFilterPages: filters made on the settings page apply to the
// pages of their contexts: a hide filter's posts are not shown on the
// home page, a warn filter's are collapsed behind its title in a
// <details> (which opens without JavaScript), the global timeline (not
// one of their contexts) shows them all; keywords are added and removed,
// a filter changed and deleted, and a wrong form shown again with its
// error.
func TestFilterPages(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	alice, bob := s.browser(), s.browser()
	alice.signUp("alice")
	bob.signUp("bob")
	redirects(t, alice.post("/u/bob/follow", nil), "/u/bob")
	for _, text := range []string{"dragon news", "Soup time", "plain words"} {
		redirects(t, bob.post("/post", url.Values{"status": {text}}), "/")
	}
	s.drain()
	expect(t, alice.get("/settings"), http.StatusOK, `href="/settings/filters"`)
	expect(t, alice.get("/settings/filters"), http.StatusOK, "None yet.")
	create := func(title, action, keywords string) {
		t.Helper()
		redirects(t, alice.post("/settings/filters", url.Values{"op": {"create"}, "title": {title}, "action": {action},
			"context": {"home", "thread"}, "keywords": {keywords}, "whole_word": {"1"}}), "/settings/filters")
	}
	create("Spoilers", "hide", "dragon")
	create("Food", "warn", "soup, stew")
	home := alice.get("/")
	expect(t, home, http.StatusOK, "plain words", `<details class="filtered"><summary>Filtered: Food</summary>`)
	if strings.Contains(home.body, "dragon news") {
		t.Error("the home page shows the hidden post")
	}
	if !regexp.MustCompile(`(?s)<summary>Filtered: Food</summary>.*Soup time.*</details>`).MatchString(home.body) {
		t.Error("the warned post is not inside its <details>")
	}
	if global := alice.get("/timeline"); !strings.Contains(global.body, "dragon news") || strings.Contains(global.body, "Filtered:") {
		t.Error("the global timeline, where no filter applies, was filtered")
	}
	page := alice.get("/settings/filters")
	expect(t, page, http.StatusOK, "<h2>Spoilers</h2>", "Hidden in home, thread", "<h2>Food</h2>", "stew")
	ids := regexp.MustCompile(`name="op" value="unkeyword"><input type="hidden" name="id" value="(\d+)"`).FindAllStringSubmatch(page.body, -1)
	filterIDs := regexp.MustCompile(`name="op" value="delete"><input type="hidden" name="id" value="(\d+)"`).FindAllStringSubmatch(page.body, -1)
	if len(ids) != 3 || len(filterIDs) != 2 {
		t.Fatalf("keywords %v, filters %v on the page", ids, filterIDs)
	}
	redirects(t, alice.post("/settings/filters", url.Values{"op": {"unkeyword"}, "id": {ids[1][1]}}), "/settings/filters") // soup
	redirects(t, alice.post("/settings/filters", url.Values{"op": {"keyword"}, "id": {filterIDs[1][1]}, "keyword": {"time"}}), "/settings/filters")
	redirects(t, alice.post("/settings/filters", url.Values{"op": {"update"}, "id": {filterIDs[1][1]}, "title": {"Meals"},
		"action": {"hide"}, "context": {"home"}}), "/settings/filters")
	if home := alice.get("/"); strings.Contains(home.body, "Soup time") || !strings.Contains(home.body, "plain words") {
		t.Error("the changed filter does not hide the post")
	}
	expect(t, alice.post("/settings/filters", url.Values{"op": {"create"}, "title": {"x"}, "action": {"warn"}}), http.StatusBadRequest, "A filter needs a title and a context.")
	redirects(t, alice.post("/settings/filters", url.Values{"op": {"delete"}, "id": {filterIDs[0][1]}}), "/settings/filters")
	expect(t, alice.get("/"), http.StatusOK, "dragon news")
}
