package s3test

import (
	"strings"
	"testing"
)

// TestNoBinarySaysHow: without a weed binary the error tells how to get
// one, so that a test fails with the fix rather than skipping.
func TestNoBinarySaysHow(t *testing.T) {
	t.Setenv(EnvWeed, "")
	t.Setenv("PATH", t.TempDir())
	_, err := binary(t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "scripts/s3-server.sh") {
		t.Fatalf("binary without weed: %v; want an error naming scripts/s3-server.sh", err)
	}
	t.Setenv(EnvWeed, "/opt/weed")
	if p, err := binary(t.TempDir()); p != "/opt/weed" || err != nil {
		t.Fatalf("binary with %s set: %q, %v", EnvWeed, p, err)
	}
}

// TestBucketNames: a test's bucket name is valid for S3 (3 to 63 of
// [a-z0-9-], starting and ending with a letter or digit) and new each
// time.
func TestBucketNames(t *testing.T) {
	s := &Server{endpoint: "127.0.0.1:1"}
	seen := map[string]bool{}
	for range 2 {
		t.Run("Odd_Name/With Spaces/"+strings.Repeat("x", 80), func(t *testing.T) {
			b := s.Bucket(t)
			if len(b.Name) < 3 || len(b.Name) > 63 || notBucketChars.MatchString(strings.ReplaceAll(b.Name, "-", "")) ||
				strings.HasPrefix(b.Name, "-") || strings.HasSuffix(b.Name, "-") || seen[b.Name] {
				t.Fatalf("bucket name %q", b.Name)
			}
			seen[b.Name] = true
		})
	}
}
