// Package blobstest is the conformance test of a blob storage (the
// media service's Blobs: internal/media/dirblobs, internal/media/s3blobs):
// what every implementation does the same, checked on a real one.
package blobstest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"sync"
	"testing"

	"github.com/retwis/retwis/internal/testkit/must"
)

// Blobs is the method set of the media service's blob storage.
type Blobs interface {
	Put(ctx context.Context, name, contentType string, data []byte) error
	Open(ctx context.Context, name string) (io.ReadCloser, int64, error)
	Delete(ctx context.Context, prefix string) error
	Walk(ctx context.Context, prefix string, fn func(name string, size int64) error) error
}

// Run runs the conformance tests as subtests of t, in parallel, each on
// an empty storage that open returns.
func Run(t *testing.T, open func(testing.TB) Blobs) {
	for _, c := range []struct {
		name string
		test func(*testing.T, Blobs)
	}{
		{"PutOpen", putOpen},
		{"Replace", replace},
		{"Missing", missing},
		{"WalkOrder", walkOrder},
		{"WalkStops", walkStops},
		{"DeletePrefix", deletePrefix},
		{"ParallelPuts", parallelPuts},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			c.test(t, open(t))
		})
	}
}

// Read returns the content of the blob name of b and checks that the
// size Open tells is its length.
func Read(t testing.TB, b Blobs, name string) []byte {
	t.Helper()
	r, size, err := b.Open(t.Context(), name)
	must.OK(t, err)
	defer r.Close()
	data := must.Value(io.ReadAll(r))(t)
	if int64(len(data)) != size {
		t.Fatalf("Open(%s) told size %d, read %d bytes", name, size, len(data))
	}
	return data
}

// Names returns the names and sizes of the blobs of b under prefix, as
// Walk gives them.
func Names(t testing.TB, b Blobs, prefix string) []string {
	t.Helper()
	var names []string
	must.OK(t, b.Walk(t.Context(), prefix, func(name string, size int64) error {
		names = append(names, fmt.Sprintf("%s:%d", name, size))
		return nil
	}))
	return names
}

func putOpen(t *testing.T, b Blobs) {
	data := bytes.Repeat([]byte{0xff, 0xd8, 0, 1}, 5000)
	must.OK(t, b.Put(t.Context(), "1/2/original.jpg", "image/jpeg", data))
	if got := Read(t, b, "1/2/original.jpg"); !bytes.Equal(got, data) {
		t.Fatalf("read %d bytes unlike the %d put", len(got), len(data))
	}
	must.OK(t, b.Put(t.Context(), "1/2/empty.png", "image/png", nil))
	if got := Read(t, b, "1/2/empty.png"); len(got) != 0 {
		t.Fatalf("an empty blob read as %q", got)
	}
}

func replace(t *testing.T, b Blobs) {
	must.OK(t, b.Put(t.Context(), "1/3/small.png", "image/png", []byte("first, longer")))
	must.OK(t, b.Put(t.Context(), "1/3/small.png", "image/png", []byte("second")))
	if got := string(Read(t, b, "1/3/small.png")); got != "second" {
		t.Fatalf("after a replace, read %q", got)
	}
	if got := Names(t, b, ""); !slices.Equal(got, []string{"1/3/small.png:6"}) {
		t.Fatalf("after a replace, walked %q", got)
	}
}

func missing(t *testing.T, b Blobs) {
	must.OK(t, b.Put(t.Context(), "1/4/original.gif", "image/gif", []byte("GIF89a")))
	for _, name := range []string{"1/4/small.gif", "1/4", "1/4/", "1", "9/9/original.jpg"} {
		if r, _, err := b.Open(t.Context(), name); !errors.Is(err, fs.ErrNotExist) {
			if r != nil {
				r.Close()
			}
			t.Errorf("Open(%q): %v; want fs.ErrNotExist", name, err)
		}
	}
	must.OK(t, b.Delete(t.Context(), "7/"))
	if got := Names(t, b, "7/"); len(got) != 0 {
		t.Fatalf("walk of nothing gave %q", got)
	}
}

func walkOrder(t *testing.T, b Blobs) {
	// Bytewise order: "-" and "." come before "/", which comes before
	// the digits.
	names := []string{"1/2/small.jpg", "1/20/original.jpg", "1/2/original.jpg", "10/1/small.png",
		"1/2-x/small.gif", "1/2.x", "2/1/original.jpg", "1/21/a"}
	for i, name := range names {
		must.OK(t, b.Put(t.Context(), name, "image/jpeg", make([]byte, i)))
	}
	want := []string{"1/2-x/small.gif:4", "1/2.x:5", "1/2/original.jpg:2", "1/2/small.jpg:0",
		"1/20/original.jpg:1", "1/21/a:7", "10/1/small.png:3", "2/1/original.jpg:6"}
	if got := Names(t, b, ""); !slices.Equal(got, want) {
		t.Errorf("walk of all:\n got %q\nwant %q", got, want)
	}
	if got := Names(t, b, "1/2/"); !slices.Equal(got, want[2:4]) {
		t.Errorf("walk of 1/2/: got %q, want %q", got, want[2:4])
	}
	if got := Names(t, b, "1/2"); !slices.Equal(got, want[:6]) {
		t.Errorf("walk of 1/2: got %q, want %q", got, want[:6])
	}
}

func walkStops(t *testing.T, b Blobs) {
	for _, name := range []string{"5/1/a", "5/1/b", "5/1/c"} {
		must.OK(t, b.Put(t.Context(), name, "image/png", []byte(name)))
	}
	stop := errors.New("enough")
	var seen []string
	err := b.Walk(t.Context(), "5/", func(name string, _ int64) error {
		seen = append(seen, name)
		if len(seen) == 2 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || !slices.Equal(seen, []string{"5/1/a", "5/1/b"}) {
		t.Fatalf("Walk stopped with %v after %q; want %v after 5/1/a and 5/1/b", err, seen, stop)
	}
}

func deletePrefix(t *testing.T, b Blobs) {
	for _, name := range []string{"3/1/original.jpg", "3/1/small.jpg", "3/10/original.jpg", "3/2/original.png", "30/1/a"} {
		must.OK(t, b.Put(t.Context(), name, "image/jpeg", []byte("x")))
	}
	must.OK(t, b.Delete(t.Context(), "3/1/"))
	want := []string{"3/10/original.jpg:1", "3/2/original.png:1", "30/1/a:1"}
	if got := Names(t, b, ""); !slices.Equal(got, want) {
		t.Fatalf("after deleting 3/1/: %q; want %q", got, want)
	}
	if _, _, err := b.Open(t.Context(), "3/1/original.jpg"); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Open of a deleted blob: %v; want fs.ErrNotExist", err)
	}
	must.OK(t, b.Delete(t.Context(), "3/"))
	if got := Names(t, b, ""); !slices.Equal(got, want[2:]) {
		t.Fatalf("after deleting 3/: %q; want %q", got, want[2:])
	}
	must.OK(t, b.Put(t.Context(), "3/1/original.jpg", "image/jpeg", []byte("again")))
	if got := string(Read(t, b, "3/1/original.jpg")); got != "again" {
		t.Fatalf("a blob put again after its delete read %q", got)
	}
}

// parallelPuts writes the same names and others from several goroutines:
// every name ends up whole, one writer's data, never a mix.
func parallelPuts(t *testing.T, b Blobs) {
	const writers, names = 4, 8
	var wg sync.WaitGroup
	errs := make(chan error, writers*names)
	for w := range writers {
		wg.Go(func() {
			for n := range names {
				data := bytes.Repeat([]byte{byte('a' + w)}, 64<<10)
				errs <- b.Put(context.WithoutCancel(t.Context()), fmt.Sprintf("4/%d/original.jpg", n), "image/jpeg", data)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		must.OK(t, err)
	}
	for n := range names {
		data := Read(t, b, fmt.Sprintf("4/%d/original.jpg", n))
		if len(data) != 64<<10 || bytes.Count(data, data[:1]) != len(data) {
			t.Fatalf("4/%d/original.jpg: %d bytes, not one writer's", n, len(data))
		}
	}
	if got := Names(t, b, "4/"); len(got) != names {
		t.Fatalf("walked %d blobs after parallel puts of %d names: %q", len(got), names, got)
	}
}

// BlobSize is the size of the blobs Bench writes and reads: about a
// photo's re-encoded original.
const BlobSize = 400 << 10

// Bench measures, as sub-benchmarks of b, the put of a blob of BlobSize
// (each under a new name, as uploads are) and the read of one whole,
// on a storage that open returns.
func Bench(b *testing.B, open func(testing.TB) Blobs) {
	s := open(b)
	data := bytes.Repeat([]byte("0123456789abcdef"), BlobSize/16)
	b.Run("Put", func(b *testing.B) {
		b.SetBytes(BlobSize)
		for i := 0; b.Loop(); i++ {
			must.OK(b, s.Put(b.Context(), fmt.Sprintf("1/%d/original.jpg", i), "image/jpeg", data))
		}
	})
	must.OK(b, s.Put(b.Context(), "2/1/original.jpg", "image/jpeg", data))
	b.Run("Open", func(b *testing.B) {
		b.SetBytes(BlobSize)
		for b.Loop() {
			Read(b, s, "2/1/original.jpg")
		}
	})
}
