package apiwire

import (
	"strings"
	"testing"
)

func FuzzDataURI(f *testing.F) {
	for _, s := range []string{"", "data:image/png;base64,iVBORw0KGgo=", "data:,x", "data:;base64,", "data:image/png;base64,***"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if data := DataURI(s); data != nil && !strings.HasPrefix(s, "data:") {
			t.Fatalf("%q: content from what is not a data URI", s)
		}
	})
}
