package page

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"testing"
	"unicode/utf8"
)

// FuzzParseFiles: whatever multipart body a client sends, the form is
// read or refused with 400 or 413, never with a panic, and what is read
// is valid UTF-8 within the parts' bound.
func FuzzParseFiles(f *testing.F) {
	f.Add([]byte("--b\r\nContent-Disposition: form-data; name=\"status\"\r\n\r\nhi\r\n--b\r\nContent-Disposition: form-data; name=\"media\"; filename=\"a.jpg\"\r\n\r\n\xff\xd8\r\n--b--\r\n"))
	f.Add([]byte("--b\r\n\r\n--b--"))
	f.Add([]byte("--b\r\nContent-Disposition: form-data; name=\"alt\"\r\n\r\n\xff\r\n--b--\r\n"))
	f.Fuzz(func(t *testing.T, body []byte) {
		r := httptest.NewRequest(http.MethodPost, "/post", bytes.NewReader(body))
		r.Header.Set("Content-Type", "multipart/form-data; boundary=b")
		r.Body = http.MaxBytesReader(httptest.NewRecorder(), r.Body, 1<<16)
		fs, status, err := ParseFiles(r, "media")
		if err != nil {
			if status != http.StatusBadRequest && status != http.StatusRequestEntityTooLarge {
				t.Fatalf("refused with %d: %v", status, err)
			}
			return
		}
		if len(fs["media"]) > maxParts {
			t.Fatalf("%d files", len(fs["media"]))
		}
		for _, vs := range r.PostForm {
			for _, v := range vs {
				if !utf8.ValidString(v) {
					t.Fatalf("invalid UTF-8 read: %q", v)
				}
			}
		}
	})
}
