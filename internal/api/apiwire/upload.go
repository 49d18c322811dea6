package apiwire

import (
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/middleware"
)

// uploadSlack is what the body of an upload may weigh beyond its files:
// the other fields and the multipart framing.
const uploadSlack = 64 << 10

// Upload wraps a route that takes up to files files of up to max bytes
// each in a multipart body: its body may weigh that and uploadSlack
// (middleware.LargeBody), not only MaxBodyBytes.
func Upload(max int64, files int, next http.HandlerFunc) http.HandlerFunc {
	return middleware.LargeBody(int64(files)*max+uploadSlack, next)
}

// UploadParams is Params of a route wrapped in Upload, whose files may
// weigh max bytes each: a body too large is an error of kind Invalid
// (422, as Mastodon answers a file too large) saying so; another error
// of Params is answered, and ok is false once answered.
func UploadParams(w http.ResponseWriter, r *http.Request, max int64) (_ url.Values, ok bool) {
	v, err := Params(r)
	if err == nil {
		return v, true
	}
	if ParamStatus(err) == http.StatusRequestEntityTooLarge {
		RenderError(w, r, http.StatusUnprocessableEntity, fmt.Sprintf("A file may weigh at most %d MB.", max>>20))
	} else {
		BadRequest(w, r, err)
	}
	return nil, false
}

// File returns the content of the file the multipart body read by
// Params gives as name (nil for none), at most max bytes and one more,
// so that the one who checks it can say that it is too large; more
// than one file of that name is an error of kind Invalid.
func File(r *http.Request, name string, max int64) ([]byte, error) {
	if r.MultipartForm == nil || len(r.MultipartForm.File[name]) == 0 {
		return nil, nil
	}
	fhs := r.MultipartForm.File[name]
	if len(fhs) > 1 {
		return nil, retwis.Errorf(retwis.Invalid, "Send one file as %s, not %d.", name, len(fhs))
	}
	f, err := fhs[0].Open()
	if err != nil {
		return nil, fmt.Errorf("apiwire: open the upload %s: %w", name, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, fmt.Errorf("apiwire: read the upload %s: %w", name, err)
	}
	return data, nil
}

// DataURI returns the content of a file sent as a data URI in a text
// parameter (as Mastodon takes an avatar: "data:image/png;base64,…"),
// nil for "" or text that is not one.
func DataURI(s string) []byte {
	meta, payload, ok := strings.Cut(strings.TrimPrefix(s, "data:"), ",")
	if !ok || !strings.HasPrefix(s, "data:") || !strings.HasSuffix(meta, ";base64") {
		return nil
	}
	data, err := base64.StdEncoding.DecodeString(payload)
	if err != nil {
		return nil
	}
	return data
}
