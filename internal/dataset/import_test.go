package dataset_test

import (
	"bufio"
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/retwis/retwis/internal/dataset"
	"github.com/retwis/retwis/internal/resp"
	"github.com/retwis/retwis/internal/store"
)

// TestImportEdgeCases: a CSV line broken in its first field is reported,
// not a crash; JSON ids beyond 2^53 stay exact.
func TestImportEdgeCases(t *testing.T) {
	var skipped []string
	var out bytes.Buffer
	stats, err := dataset.Import(t.Context(), store.NewRESPWriter(resp.NewWriter(bufio.NewWriter(&out))), dataset.ImportOptions{
		Graph:        strings.NewReader("1500000000000000001 1500000000000000002\n"),
		Users:        strings.NewReader("{\"id\": 1500000000000000001, \"username\": \"alice\"}\n{\"id\": 1500000000000000002, \"username\": \"bob\"}\n"),
		UsersFormat:  "jsonl",
		Posts:        strings.NewReader("user,time,body\na\"b,1,x\n1500000000000000002,1401267618,hello\n"),
		PostsFormat:  "csv",
		PasswordHash: "$argon2id$test",
		Timelines:    dataset.Timelines{HomeCap: 800},
		Now:          time.Unix(1401267618, 0),
		Skip:         func(file string, line int, reason string) { skipped = append(skipped, file+": "+reason) },
	})
	if err != nil {
		t.Fatal(err)
	}
	if stats.Users != 2 || stats.Follows != 1 || stats.Posts != 1 {
		t.Fatalf("stats = %+v (skipped %v); want alice and bob, one follow, one post", stats, skipped)
	}
	if len(skipped) != 1 || !strings.HasPrefix(skipped[0], "posts: ") {
		t.Fatalf("skipped = %v; want the broken CSV line only", skipped)
	}
}
