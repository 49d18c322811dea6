package dirblobs_test

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/retwis/retwis/internal/media/dirblobs"
	"github.com/retwis/retwis/internal/testkit/blobstest"
	"github.com/retwis/retwis/internal/testkit/must"
)

func TestConformance(t *testing.T) {
	t.Parallel()
	blobstest.Run(t, open)
}

// open opens an empty store.
func open(t testing.TB) blobstest.Blobs {
	return must.Value(dirblobs.New(filepath.Join(t.TempDir(), "media")))(t)
}

// TestNamesStayInside: a name that could reach outside the directory,
// or that is not one retwis makes, is refused by Put and not found by
// Open, and nothing is written.
func TestNamesStayInside(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	s := must.Value(dirblobs.New(filepath.Join(root, "media")))(t)
	must.OK(t, os.WriteFile(filepath.Join(root, "secret"), []byte("x"), 0o600))
	for _, name := range []string{"", "../secret", "1/../../secret", "/etc/passwd", "1//a", "./a", "1/./a",
		"1/a/", "A/b", "1/a b", "1\\a", "1/a\x00", "1/é", strings.Repeat("a", dirblobs.MaxNameLen+1)} {
		if dirblobs.ValidName(name) {
			t.Errorf("ValidName(%q) = true", name)
		}
		if err := s.Put(t.Context(), name, "image/png", []byte("y")); err == nil {
			t.Errorf("Put(%q) succeeded", name)
		}
		if _, _, err := s.Open(t.Context(), name); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("Open(%q): %v; want fs.ErrNotExist", name, err)
		}
	}
	if err := s.Delete(t.Context(), "../"); err == nil {
		t.Error("Delete(../) succeeded")
	}
	if got := string(must.Value(os.ReadFile(filepath.Join(root, "secret")))(t)); got != "x" {
		t.Fatalf("the file beside the store became %q", got)
	}
	if got := blobstest.Names(t, s, ""); len(got) != 0 {
		t.Fatalf("refused names left blobs: %q", got)
	}
	for _, name := range []string{"1/2/original.jpg", "12/3_4/small.png", "a-b/c.d", strings.Repeat("a", dirblobs.MaxNameLen)} {
		if !dirblobs.ValidName(name) {
			t.Errorf("ValidName(%q) = false", name)
		}
	}
}

// TestFilesOnDisk: a blob is a file of its name under the directory, a
// write under way (a temporary file) is no blob, and a delete leaves no
// empty directory behind.
func TestFilesOnDisk(t *testing.T) {
	t.Parallel()
	s := must.Value(dirblobs.New(filepath.Join(t.TempDir(), "media")))(t)
	must.OK(t, s.Put(t.Context(), "1/2/original.jpg", "image/jpeg", []byte("jpeg")))
	must.OK(t, s.Put(t.Context(), "1/3/original.jpg", "image/jpeg", []byte("jpeg")))
	if got := string(must.Value(os.ReadFile(filepath.Join(s.Dir(), "1", "2", "original.jpg")))(t)); got != "jpeg" {
		t.Fatalf("the file holds %q", got)
	}
	must.OK(t, os.WriteFile(filepath.Join(s.Dir(), "1", "2", ".put-123"), []byte("half"), 0o600))
	if got := blobstest.Names(t, s, ""); len(got) != 2 {
		t.Fatalf("walked %q; want the two blobs and no temporary file", got)
	}
	must.OK(t, s.Delete(t.Context(), "1/3/"))
	if _, err := os.Stat(filepath.Join(s.Dir(), "1", "3")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("the deleted media's directory: %v; want it gone", err)
	}
	must.OK(t, s.Delete(t.Context(), "1/"))
	if _, err := os.Stat(filepath.Join(s.Dir(), "1", "2", ".put-123")); err != nil {
		t.Fatalf("a directory that still held a file was removed: %v", err)
	}
}

func BenchmarkBlobs(b *testing.B) { blobstest.Bench(b, open) }

// TestPutBesideDelete: deletes that empty an owner's folder while the
// owner uploads never make an upload fail (a folder removed between its
// making and the write is made again).
func TestPutBesideDelete(t *testing.T) {
	t.Parallel()
	s := must.Value(dirblobs.New(filepath.Join(t.TempDir(), "media")))(t)
	const n = 100
	done := make(chan error, 1)
	go func() {
		for i := range n {
			if err := s.Delete(t.Context(), fmt.Sprintf("9/%d/", i)); err != nil {
				done <- err
				return
			}
		}
		done <- nil
	}()
	for i := range n {
		must.OK(t, s.Put(t.Context(), fmt.Sprintf("9/%d/original.jpg", i), "image/jpeg", []byte("x")))
	}
	must.OK(t, <-done)
}
