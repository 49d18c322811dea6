package parts

import (
	"fmt"
	"html/template"
	"strings"
	"testing"
	"time"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/testkit/must"
	"github.com/retwis/retwis/internal/web/words"
)

// TestFragments renders posts through the cache: each comes out as the
// post template renders it (escaped, with the time as of now), the
// second time from the cache, again when its author's name or display
// name changed or it was edited (with how long ago, and a link to its
// versions), and
// the cache keeps no more than its capacity, evicting the oldest.
func TestFragments(t *testing.T) {
	t.Parallel()
	tmpl := partials(t)
	f := NewFragments(tmpl, 3)
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	direct := func(p retwis.Post) string {
		var b strings.Builder
		v := PostView{Post: p, BodyHTML: BodyHTML(p), Ago: words.Since(now.Sub(p.Time)), Actions: ActionsHTML(p)}
		if !p.Edited.IsZero() {
			v.EditedAgo = words.Since(now.Sub(p.Edited))
		}
		if err := tmpl.ExecuteTemplate(&b, "post", v); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	for _, tc := range []struct {
		name string
		p    retwis.Post
	}{
		{"plain", retwis.Post{ID: 1, AuthorID: 7, Author: "alice", Time: now.Add(-3 * time.Minute), Body: "hello"}},
		{"markup in the body", retwis.Post{ID: 2, AuthorID: 7, Author: "alice", Time: now.Add(-2 * time.Hour), Body: `<script>alert("x")</script> & "quotes"`}},
		{"the marker in the body", retwis.Post{ID: 3, AuthorID: 8, Author: "bob", Time: now, Body: "look: " + agoMarker + " here"}},
		{"an odd name", retwis.Post{ID: 4, AuthorID: 9, Author: "a b/c?d", Time: now.Add(-time.Hour), Body: "x"}},
		{"edited", retwis.Post{ID: 7, AuthorID: 9, Author: "eve", Time: now.Add(-time.Hour), Edited: now.Add(-5 * time.Minute), Body: "new"}},
		{"the markers in an edited body", retwis.Post{ID: 8, AuthorID: 9, Author: "eve", Time: now.Add(-time.Hour), Edited: now.Add(-2 * time.Minute),
			Body: agoMarker + editedMarker + " " + editedMarker, Warning: editedMarker}},
		{"a hostile display name", retwis.Post{ID: 10, AuthorID: 9, Author: "eve", AuthorDisplayName: `<script>x</script> & "Eve"`, Time: now, Body: "y"}},
	} {
		for round := range 2 { // rendered, then from the cache
			got, err := f.HTML([]retwis.Post{tc.p}, now)
			if err != nil {
				t.Fatal(err)
			}
			if want := direct(tc.p); string(got) != want {
				t.Errorf("%s, round %d: fragments give\n%s\nthe template\n%s", tc.name, round, got, want)
			}
			if strings.Contains(string(got), "<script>") {
				t.Errorf("%s: unescaped markup in %s", tc.name, got)
			}
		}
	}
	two := []retwis.Post{{ID: 5, Author: "carol", Time: now, Body: "one"}, {ID: 6, Author: "dave", Time: now, Body: "two"}}
	if got := must.Value(f.HTML(two, now))(t); string(got) != direct(two[0])+direct(two[1]) {
		t.Errorf("two posts give %s; want each in turn", got)
	}
	renamed := retwis.Post{ID: 1, AuthorID: 7, Author: "alicia", Time: now.Add(-3 * time.Minute), Body: "hello"}
	if got := must.Value(f.HTML([]retwis.Post{renamed}, now))(t); !strings.Contains(string(got), "alicia") {
		t.Errorf("after the author's name changed: %s", got)
	}
	edited := renamed
	edited.Body, edited.Edited = "hello again", now.Add(-time.Minute)
	if got := string(must.Value(f.HTML([]retwis.Post{edited}, now))(t)); got != direct(edited) ||
		!strings.Contains(got, "hello again") || !strings.Contains(got, `href="/p/1/history"`) || !strings.Contains(got, "edited 1 minute ago") {
		t.Errorf("after an edit: %s; want the new text, edited 1 minute ago, linking to the versions", got)
	}
	named := renamed
	named.AuthorDisplayName = "Alicia Keys"
	if got := must.Value(f.HTML([]retwis.Post{named}, now))(t); !strings.Contains(string(got), `<bdi class="name">Alicia Keys</bdi> <span class="username">@alicia</span>`) {
		t.Errorf("after the author's display name changed: %s", got)
	}
	if n := f.cache.Len(); n != 3 {
		t.Errorf("the cache holds %d fragments; want its capacity, 3", n)
	}
	for id, want := range map[int64]bool{1: true, 8: false, 5: true, 6: true} { // 1 came back, evicting the oldest
		if _, ok := f.cache.Load(id); ok != want {
			t.Errorf("post %d cached: %v; want %v", id, ok, want)
		}
	}
}

// BenchmarkPostHTML compares a post from the fragment cache with the
// post template executed each time.
func BenchmarkPostHTML(b *testing.B) {
	tmpl := partials(b)
	now := time.Now()
	p := retwis.Post{ID: 42, AuthorID: 7, Author: "alice", Time: now.Add(-time.Hour),
		Body: "a status update of a realistic length, with an ampersand & a <tag> to escape"}
	b.Run("template", func(b *testing.B) {
		for b.Loop() {
			var sb strings.Builder
			if err := tmpl.ExecuteTemplate(&sb, "post", PostView{Post: p, BodyHTML: BodyHTML(p), Ago: words.Since(now.Sub(p.Time)), Actions: ActionsHTML(p)}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("fragments", func(b *testing.B) {
		f := NewFragments(tmpl, 10)
		var out template.HTML
		for b.Loop() {
			out, _ = f.HTML([]retwis.Post{p}, now)
		}
		_ = fmt.Sprint(len(out))
	})
}

// partials returns the pages' partials (../page/templates/partials.html),
// with the functions they call, the posts' through fragments of them.
func partials(t testing.TB) *template.Template {
	var f *Fragments
	funcs := template.FuncMap{
		"postsHTML": func(posts []retwis.Post) (template.HTML, error) { return f.HTML(posts, time.Now()) },
		"pageHTML":  func(page retwis.Page) (template.HTML, error) { return f.PageHTML(page, time.Now()) },
		"profile":   retwis.ProfilePath, "postPath": retwis.PostPath, "tagPath": retwis.TagPath, "plural": words.Plural,
		"ago": func(t time.Time) string { return words.Since(time.Since(t)) }, "maxPostChars": func() int { return 500 }, "urlChars": func() int { return 23 },
		"visibilities": retwis.Visibilities, "avatarPath": retwis.AvatarPath, "maxAttachments": func() []int { return []int{1, 2, 3, 4} },
		"maxDescription": func() int { return retwis.MaxDescriptionChars },
	}
	tmpl := must.Value(template.New("").Funcs(funcs).ParseFiles("../page/templates/partials.html"))(t)
	f = NewFragments(tmpl, 10)
	return tmpl
}

// TestFragmentsActions: a post's action bar is written fresh from its
// count and the reader's marks each time, the kept fragment around it
// staying the same: the same post counted anew, or read by a reader who
// marked it, shows that, as the template would render it.
func TestFragmentsActions(t *testing.T) {
	t.Parallel()
	f := NewFragments(partials(t), 10)
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	p := retwis.Post{ID: 42, AuthorID: 7, Author: "alice", Time: now, Body: "hello"}
	first := string(must.Value(f.HTML([]retwis.Post{p}, now))(t))
	if !strings.Contains(first, `action="/p/42/favourite"`) || strings.Contains(first, `class="count"`) ||
		!strings.Contains(first, `action="/p/42/bookmark"`) {
		t.Errorf("a post no one marked (its buttons, no count of zero): %s", first)
	}
	p.Favourites, p.Favourited, p.Bookmarked = 3, true, true
	marked := string(must.Value(f.HTML([]retwis.Post{p}, now))(t))
	for _, want := range []string{`action="/p/42/unfavourite"`, `aria-pressed="true"`, `<span class="count">3</span>`, `action="/p/42/unbookmark"`} {
		if !strings.Contains(marked, want) {
			t.Errorf("the post marked and counted lacks %s: %s", want, marked)
		}
	}
	if bar := string(ActionsHTML(p)); !strings.Contains(marked, bar) || strings.Replace(marked, bar, "", 1) != strings.Replace(first, string(ActionsHTML(retwis.Post{ID: 42})), "", 1) {
		t.Errorf("the kept part changed with the marks:\n%s\n%s", first, marked)
	}
}

// TestFragmentsVeiled: a page's posts that a warn filter matched are
// each in a <details> that names the filter, the others as they are.
func TestFragmentsVeiled(t *testing.T) {
	t.Parallel()
	f := NewFragments(partials(t), 10)
	now := time.Now()
	posts := []retwis.Post{{ID: 1, AuthorID: 1, Author: "ann", Body: "first", Time: now}, {ID: 2, AuthorID: 1, Author: "ann", Body: "second", Time: now}}
	plain := must.Value(f.HTML(posts, now))(t)
	veiled := string(must.Value(f.PageHTML(retwis.Page{Posts: posts, Veiled: map[int64]string{2: "Food & <drink>"}}, now))(t))
	first, second := must.Value(f.HTML(posts[:1], now))(t), must.Value(f.HTML(posts[1:], now))(t)
	want := string(first) + `<details class="filtered"><summary>Filtered: Food &amp; &lt;drink&gt;</summary>` + "\n" + string(second) + "</details>\n"
	if veiled != want {
		t.Errorf("veiled:\n%s\nwant:\n%s", veiled, want)
	}
	if unveiled := must.Value(f.PageHTML(retwis.Page{Posts: posts}, now))(t); unveiled != plain {
		t.Error("a page with nothing veiled is not its posts' HTML")
	}
}

// TestFragmentsCard: the preview of a post's link, which comes after the
// post was first shown, is shown once it has come (the fragment kept
// without it is not), as the template renders it: its title a link that
// passes no authority, its small picture without alt text, its text
// escaped; behind the content warning when there is one.
func TestFragmentsCard(t *testing.T) {
	t.Parallel()
	tmpl := partials(t)
	f := NewFragments(tmpl, 8)
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	p := retwis.Post{ID: 1, AuthorID: 7, Author: "alice", Time: now, Body: "see https://example.com/x?a=1&b=2"}
	if got := string(must.Value(f.HTML([]retwis.Post{p}, now))(t)); strings.Contains(got, "link-card") {
		t.Fatalf("a card before it came: %s", got)
	}
	p.Card = &retwis.Card{URL: "https://example.com/x?a=1&b=2", Title: `<b>T</b> & co`, Description: "About <i>it</i>", ProviderName: "Ex",
		Image: &retwis.Attachment{ID: 3, Owner: 9, Ext: "jpg", SmallExt: "jpg", Width: 800, Height: 400, SmallWidth: 400, SmallHeight: 200}}
	got := string(must.Value(f.HTML([]retwis.Post{p}, now))(t))
	for _, want := range []string{
		`<aside class="link-card"><img src="/media/9/3/small.jpg" alt="" width="400" height="200" loading="lazy">`,
		`<a href="https://example.com/x?a=1&amp;b=2" rel="nofollow noopener ugc" dir="auto">&lt;b&gt;T&lt;/b&gt; &amp; co</a>`,
		`<span class="provider" dir="auto">Ex</span><p dir="auto">About &lt;i&gt;it&lt;/i&gt;</p></aside>`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the post with its card:\n%s\nlacks %s", got, want)
		}
	}
	p.ID, p.Warning, p.Card.Image = 2, "spoilers", nil
	got = string(must.Value(f.HTML([]retwis.Post{p}, now))(t))
	if i, j := strings.Index(got, "link-card"), strings.Index(got, "</details>"); i < 0 || j < i || strings.Contains(got, `<img src="/media`) {
		t.Errorf("a warned post's card without a picture: %s", got)
	}
}
