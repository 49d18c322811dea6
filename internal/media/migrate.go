package media

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"time"
)

// Migrate copies src (named from) to dst (named to) with Copy, writing
// its progress to w: what there is to look at, a line every so many
// files ("copied 1,000 of 5,678 (1,000 looked at)"), and what it copied
// in the end; an error says that a run again goes on where it stopped.
// It is `retwis media migrate`.
func Migrate(ctx context.Context, dst, src Blobs, from, to string, w io.Writer, every int) error {
	total := 0
	if err := src.Walk(ctx, "", func(string, int64) error { total++; return nil }); err != nil {
		return fmt.Errorf("media: list %s: %w", from, err)
	}
	fmt.Fprintf(w, "copying %s files from %s to %s\n", Thousands(total), from, to)
	start := time.Now()
	copied, err := Copy(ctx, dst, src, func(seen, copied int) {
		if seen%every == 0 {
			fmt.Fprintf(w, "copied %s of %s (%s looked at)\n", Thousands(copied), Thousands(total), Thousands(seen))
		}
	})
	fmt.Fprintf(w, "copied %s of %s files in %s (the others were there already)\n",
		Thousands(copied), Thousands(total), time.Since(start).Round(time.Millisecond))
	if err != nil {
		return fmt.Errorf("%w; run it again to go on where it stopped", err)
	}
	return nil
}

// Thousands writes n with commas between its groups of three digits.
func Thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
