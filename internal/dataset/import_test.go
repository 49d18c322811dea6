package dataset_test

import (
	"bufio"
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/retwis/retwis/internal/dataset"
	"github.com/retwis/retwis/internal/resp"
	"github.com/retwis/retwis/internal/store/bulk"
)

// TestImportEdgeCases: a CSV line broken in its first field is reported,
// not a crash; JSON ids beyond 2^53 stay exact.
func TestImportEdgeCases(t *testing.T) {
	var skipped []string
	var out bytes.Buffer
	stats, err := dataset.Import(t.Context(), bulk.NewRESPWriter(resp.NewWriter(bufio.NewWriter(&out))), dataset.ImportOptions{
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

// FuzzImport: whatever the edge list, users and posts files hold, the
// import ends with an error that says what is wrong or with what it
// read, never a panic; a line it cannot use is skipped with its reason.
func FuzzImport(f *testing.F) {
	for _, seed := range [][3]string{
		{"1 2\n2 3\n# comment\n", "id,username\n1,alice\n2,bob\n", "user,time,body\n1,1401267618,hello @bob #x\n"},
		{"1\t2\n\n3 x\n-1 2\n99999999999999999999 1\n", "id,username\n1,\xff\n", "user,time,body\n\"broken\n"},
		{"1 1\n", "id,username,created\n1,a,2014-05-28T10:00:00Z\n", "user,time,body\n1,not-a-time,x\n"},
		{"\x00 \x00\n", "", ""},
	} {
		f.Add(seed[0], seed[1], seed[2])
	}
	f.Fuzz(func(t *testing.T, graph, users, posts string) {
		if len(graph)+len(users)+len(posts) > 1<<14 {
			return
		}
		var out bytes.Buffer
		o := dataset.ImportOptions{
			Graph: strings.NewReader(graph), PasswordHash: "$argon2id$test",
			Timelines: dataset.Timelines{HomeCap: 800}, Now: time.Unix(1401267618, 0),
			Skip: func(file string, line int, reason string) {
				if reason == "" {
					t.Errorf("%s line %d skipped without a reason", file, line)
				}
			},
		}
		if users != "" {
			o.Users, o.UsersFormat = strings.NewReader(users), "csv"
		}
		if posts != "" {
			o.Posts, o.PostsFormat = strings.NewReader(posts), "csv"
		}
		stats, err := dataset.Import(t.Context(), bulk.NewRESPWriter(resp.NewWriter(bufio.NewWriter(&out))), o)
		if err == nil && (stats.Users < 0 || stats.Posts < 0 || stats.Follows < 0) {
			t.Fatalf("stats %+v", stats)
		}
	})
}
