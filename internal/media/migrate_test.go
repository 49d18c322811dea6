package media_test

import (
	"strings"
	"testing"

	"github.com/retwis/retwis/internal/media"
	"github.com/retwis/retwis/internal/media/dirblobs"
	"github.com/retwis/retwis/internal/testkit/must"
)

// TestMigrate copies a storage's files to another, showing its progress
// every so many files and at the end; run again, it copies nothing.
func TestMigrate(t *testing.T) {
	t.Parallel()
	src := must.Value(dirblobs.New(t.TempDir()))(t)
	dst := must.Value(dirblobs.New(t.TempDir()))(t)
	for i := range 12 {
		must.OK(t, src.Put(t.Context(), "1/"+media.Thousands(100+i)+"/original.jpg", "image/jpeg", []byte("x")))
	}
	var out strings.Builder
	must.OK(t, media.Migrate(t.Context(), dst, src, "here", "there", &out, 5))
	want := "copying 12 files from here to there\ncopied 5 of 12 (5 looked at)\ncopied 10 of 12 (10 looked at)\ncopied 12 of 12 files in "
	if !strings.HasPrefix(out.String(), want) {
		t.Fatalf("the progress:\n%s\nwant it to begin:\n%s", out.String(), want)
	}
	out.Reset()
	must.OK(t, media.Migrate(t.Context(), dst, src, "here", "there", &out, 5))
	if !strings.Contains(out.String(), "copied 0 of 12 files") {
		t.Errorf("a second run says:\n%s", out.String())
	}
}

// TestThousands writes counts with their groups of digits apart.
func TestThousands(t *testing.T) {
	t.Parallel()
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 1234567: "1,234,567", -1234: "-1,234"} {
		if got := media.Thousands(n); got != want {
			t.Errorf("Thousands(%d) = %q; want %q", n, got, want)
		}
	}
}
