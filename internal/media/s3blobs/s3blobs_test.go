package s3blobs_test

import (
	"os"
	"slices"
	"testing"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/media/s3blobs"
	"github.com/retwis/retwis/internal/testkit/blobstest"
	"github.com/retwis/retwis/internal/testkit/must"
	"github.com/retwis/retwis/internal/testkit/s3test"
)

func TestMain(m *testing.M) { os.Exit(s3test.Run(m)) }

// options are the options of a store in b.
func options(b s3test.Bucket) s3blobs.Options {
	return s3blobs.Options{Endpoint: b.Endpoint, Bucket: b.Name, AccessKey: b.AccessKey, SecretKey: b.SecretKey, Region: b.Region}
}

func TestConformance(t *testing.T) {
	t.Parallel()
	blobstest.Run(t, open)
}

// open opens an empty store.
func open(t testing.TB) blobstest.Blobs {
	return must.Value(s3blobs.New(t.Context(), options(s3test.Start(t))))(t)
}

// TestPrefix: two stores in one bucket with different prefixes see only
// their own blobs; a store opened on an existing bucket (with a URL for
// its endpoint) finds what another put there.
func TestPrefix(t *testing.T) {
	t.Parallel()
	o := options(s3test.Start(t))
	plain := must.Value(s3blobs.New(t.Context(), o))(t)
	o.Prefix, o.Endpoint = "/media/", "http://"+o.Endpoint
	prefixed := must.Value(s3blobs.New(t.Context(), o))(t)
	must.OK(t, plain.Put(t.Context(), "1/2/original.jpg", "image/jpeg", []byte("plain")))
	must.OK(t, prefixed.Put(t.Context(), "1/2/original.jpg", "image/jpeg", []byte("prefixed")))
	if got := string(blobstest.Read(t, prefixed, "1/2/original.jpg")); got != "prefixed" {
		t.Fatalf("the prefixed store read %q", got)
	}
	if got, want := blobstest.Names(t, prefixed, ""), []string{"1/2/original.jpg:8"}; !slices.Equal(got, want) {
		t.Fatalf("the prefixed store walked %q; want %q", got, want)
	}
	if got, want := blobstest.Names(t, plain, ""), []string{"1/2/original.jpg:5", "media/1/2/original.jpg:8"}; !slices.Equal(got, want) {
		t.Fatalf("the plain store walked %q; want %q", got, want)
	}
	must.OK(t, prefixed.Delete(t.Context(), ""))
	if got := string(blobstest.Read(t, plain, "1/2/original.jpg")); got != "plain" {
		t.Fatalf("after the prefixed store's delete, the plain store read %q", got)
	}
}

// TestWrongKeysRefused: the server checks signatures, and a refusal is
// not an outage.
func TestWrongKeysRefused(t *testing.T) {
	t.Parallel()
	o := options(s3test.Start(t))
	o.SecretKey = "not-the-secret"
	_, err := s3blobs.New(t.Context(), o)
	if err == nil || retwis.ErrorKind(err) == retwis.Unavailable {
		t.Fatalf("New with a wrong secret: %v; want a refusal that is not unavailable", err)
	}
}

// TestStoppedServerUnavailable: when the object store stops answering,
// every operation fails as Unavailable.
func TestStoppedServerUnavailable(t *testing.T) {
	t.Parallel()
	server := s3test.NewServer(t)
	s := must.Value(s3blobs.New(t.Context(), options(server.Bucket(t))))(t)
	must.OK(t, s.Put(t.Context(), "1/2/original.jpg", "image/jpeg", []byte("x")))
	server.Stop()
	ops := map[string]func() error{
		"Put":    func() error { return s.Put(t.Context(), "1/2/small.jpg", "image/jpeg", []byte("x")) },
		"Delete": func() error { return s.Delete(t.Context(), "1/") },
		"Walk":   func() error { return s.Walk(t.Context(), "", func(string, int64) error { return nil }) },
		"Open": func() error {
			_, _, err := s.Open(t.Context(), "1/2/original.jpg")
			return err
		},
	}
	for op, do := range ops { // side by side: each retries a few times first
		t.Run(op, func(t *testing.T) {
			t.Parallel()
			if err := do(); retwis.ErrorKind(err) != retwis.Unavailable {
				t.Errorf("%s on a stopped server: %v; want unavailable", op, err)
			}
		})
	}
}

func BenchmarkBlobs(b *testing.B) { blobstest.Bench(b, open) }
