package api_test

import (
	"strings"
	"testing"

	"github.com/mattn/go-mastodon"

	"github.com/retwis/retwis/internal/api"
	"github.com/retwis/retwis/internal/store"
	"github.com/retwis/retwis/internal/testkit/redistest"
)

// TestContentWarningMastodon: go-mastodon's spoiler_text is the post's
// content warning, not its text: the status created and read back
// carries it with sensitive true, and content stays the body only; a
// status without one is not sensitive; a warning too long with the text
// is refused saying the two count together, and nothing is posted.
func TestContentWarningMastodon(t *testing.T) {
	t.Parallel()
	s := newServerStore(t, redistest.Start(t).URL, api.Options{}, store.Options{MaxPostChars: 30}, nil)
	alice := client(t, s, "alice")
	ctx := t.Context()
	st, err := alice.PostStatus(ctx, &mastodon.Toot{Status: "the <ending>", SpoilerText: "film\nplot <b>"})
	if err != nil {
		t.Fatal(err)
	}
	read, err := alice.GetStatus(ctx, st.ID)
	if err != nil {
		t.Fatal(err)
	}
	for what, got := range map[string]*mastodon.Status{"created": st, "read": read} {
		if got.SpoilerText != "film plot <b>" || !got.Sensitive || strings.Contains(got.Content, "film") ||
			!strings.Contains(got.Content, "the &lt;ending&gt;") {
			t.Errorf("%s: spoiler_text %q, sensitive %v, content %q; want the warning apart, sensitive", what, got.SpoilerText, got.Sensitive, got.Content)
		}
	}
	plain, err := alice.PostStatus(ctx, &mastodon.Toot{Status: "nothing to hide"})
	if err != nil || plain.SpoilerText != "" || plain.Sensitive {
		t.Errorf("a status without a warning: %+v, %v; want no spoiler_text, not sensitive", plain, err)
	}
	if _, err := alice.PostStatus(ctx, &mastodon.Toot{Status: strings.Repeat("x", 20), SpoilerText: strings.Repeat("w", 11)}); err == nil ||
		!strings.Contains(err.Error(), "the content warning and the text together") {
		t.Errorf("31 characters with the warning: %v; want refused saying they count together", err)
	}
	me, err := alice.GetAccountCurrentUser(ctx)
	if err != nil || me.StatusesCount != 2 {
		t.Errorf("alice = %+v, %v; want 2 statuses, the refused one not posted", me, err)
	}
}
