package page

import (
	"strings"
	"testing"
	"time"

	"github.com/retwis/retwis"
)

// TestDeletedPage renders the page of an account being deleted, and of
// one deleted.
func TestDeletedPage(t *testing.T) {
	t.Parallel()
	pages, err := parseTemplates(retwis.DefaultMaxStatusLen)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		d    retwis.Deletion
		want string
	}{
		{retwis.Deletion{Posts: 350, PostsRemoved: 120, Follows: 1, FollowsRemoved: 1, Reserved: time.Date(2030, 7, 2, 0, 0, 0, 0, time.UTC)},
			"This account is being deleted (120 of 350 posts removed, 1 of 1 follow ended).</p>\n  <p class=\"hint\">Its name stays reserved until 2 July 2030"},
		{retwis.Deletion{Done: true}, "This account has been deleted."},
	} {
		var b strings.Builder
		if err := pages.templates["deleted"].ExecuteTemplate(&b, "layout", &View{Title: "ann", Deletion: tc.d}); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), tc.want) {
			t.Errorf("the page lacks %q:\n%s", tc.want, b.String())
		}
	}
}
