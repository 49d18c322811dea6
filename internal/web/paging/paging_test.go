package paging

import (
	"net/url"
	"testing"

	"github.com/retwis/retwis"
)

// FuzzParseCursor: whatever a page's query holds, it reads as a cursor
// or as an error fit to show, and never as a cursor both ways.
func FuzzParseCursor(f *testing.F) {
	for _, q := range []string{"before=12", "after=3&before=4", "before=-1", "before=99999999999999999999", "start=200", "before=%00", "after="} {
		f.Add(q)
	}
	f.Fuzz(func(t *testing.T, q string) {
		v, err := url.ParseQuery(q)
		if err != nil {
			return
		}
		c, err := ParseCursor(v, "post")
		if err != nil {
			if retwis.ErrorMessage(err) == "" {
				t.Fatalf("%q: an error without a message", q)
			}
			return
		}
		if c.Before != 0 && c.After != 0 || c.Before < 0 || c.After < 0 {
			t.Fatalf("%q: cursor %+v", q, c)
		}
	})
}
