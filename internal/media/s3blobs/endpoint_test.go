package s3blobs

import "testing"

// TestEndpoint: an endpoint is host:port (https as Secure says) or an
// http(s) URL of a host alone.
func TestEndpoint(t *testing.T) {
	for _, c := range []struct {
		endpoint string
		secure   bool
		host     string
		https    bool
		ok       bool
	}{
		{"s3.example:9000", false, "s3.example:9000", false, true},
		{"s3.example:9000", true, "s3.example:9000", true, true},
		{"https://s3.example", false, "s3.example", true, true},
		{"http://127.0.0.1:8333/", true, "127.0.0.1:8333", false, true},
		{"", false, "", false, false},
		{"ftp://s3.example", false, "", false, false},
		{"https://s3.example/bucket", false, "", false, false},
		{"https://", false, "", false, false},
	} {
		host, https, err := endpoint(c.endpoint, c.secure)
		if (err == nil) != c.ok || host != c.host || https != c.https {
			t.Errorf("endpoint(%q, %v) = %q, %v, %v; want %q, %v, ok %v", c.endpoint, c.secure, host, https, err, c.host, c.https, c.ok)
		}
	}
	if p := keyPrefix("/media/"); p != "media/" {
		t.Errorf("keyPrefix(/media/) = %q", p)
	}
}
