package page

import (
	"errors"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/middleware"
)

// Files are the files of a multipart form, by field, in the order sent:
// a file input left empty is a nil entry, so that the i-th file of a
// field pairs with the i-th value of another (a post's media with its
// alt).
type Files map[string][][]byte

// ParseForm reads a POSTed form, refusing bodies over the size limit and
// fields that are not valid UTF-8, before anything else looks at them.
func ParseForm(w http.ResponseWriter, r *http.Request) (int, error) {
	_, status, err := ParseFiles(r)
	return status, err
}

// maxParts bounds the fields of a multipart form.
const maxParts = 64

// ParseFiles reads a POSTed form as ParseForm does; a multipart one
// (multipart/form-data) is read part by part, the parts named by files
// kept as files, the others as the form's values (r.PostFormValue), all
// within the body's cap (LimitBodies). It answers the status of a form
// refused (0 if read), as FormRefused takes it.
func ParseFiles(r *http.Request, files ...string) (Files, int, error) {
	var fs Files
	var err error
	if isMultipart(r) {
		fs, err = readMultipart(r, files)
	} else {
		err = r.ParseForm()
	}
	if err != nil {
		if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
			return nil, http.StatusRequestEntityTooLarge, retwis.Errorf(retwis.Invalid, "The form is too large.")
		}
		return nil, http.StatusBadRequest, retwis.Errorf(retwis.Invalid, "The form could not be read.")
	}
	for _, vals := range r.PostForm {
		for _, v := range vals {
			if !utf8.ValidString(v) {
				return nil, http.StatusBadRequest, retwis.Errorf(retwis.Invalid, "The form holds text that is not valid UTF-8.")
			}
		}
	}
	return fs, 0, nil
}

// isMultipart reports whether r's body is a multipart form, as
// r.MultipartReader reads its type, without parsing the type of the
// others (every request is asked).
func isMultipart(r *http.Request) bool {
	const multipart = "multipart/form-data"
	ct := r.Header.Get("Content-Type")
	return len(ct) >= len(multipart) && strings.EqualFold(ct[:len(multipart)], multipart)
}

// readMultipart reads the multipart form of r in the order of its
// parts: those named by files into the Files, the others into
// r.PostForm (and r.Form, after the query's values).
func readMultipart(r *http.Request, files []string) (Files, error) {
	mr, err := r.MultipartReader()
	if err != nil {
		return nil, err
	}
	fs, form := Files{}, url.Values{}
	for n := 0; ; n++ {
		p, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if n == maxParts {
			return nil, errors.New("page: too many parts")
		}
		data, err := io.ReadAll(p)
		if err != nil {
			return nil, err
		}
		name := p.FormName()
		if !slices.Contains(files, name) {
			form.Add(name, string(data))
			continue
		}
		if len(data) == 0 {
			data = nil
		}
		fs[name] = append(fs[name], data)
	}
	r.PostForm, r.Form = form, r.URL.Query()
	for k, vs := range form {
		r.Form[k] = append(r.Form[k], vs...)
	}
	return fs, nil
}

// UploadForms bounds the multipart forms with files that a server reads
// at once (LimitBodies): each is read in memory, up to the upload cap.
const UploadForms = 8

// LimitBodies caps the request bodies of mux: at the forms' cap, or at
// uploadBytes (if larger) for a multipart form to one of the routes
// uploads (mux's patterns: "POST /post"), whose files are read in
// memory; at most UploadForms of those run at once, and one beyond is
// refused at once (503, to try again in a moment), so that a flood of
// uploads takes neither the memory nor the pages of others.
func (k *Kit) LimitBodies(mux *http.ServeMux, uploadBytes int64, uploads ...string) http.Handler {
	slots := make(chan struct{}, UploadForms)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := k.formBytes
		if isMultipart(r) {
			if _, pattern := mux.Handler(r); slices.Contains(uploads, pattern) {
				select {
				case slots <- struct{}{}:
					defer func() { <-slots }()
				default:
					w.Header().Set("Retry-After", "5")
					k.RenderError(w, r, http.StatusServiceUnavailable, "The server is busy with other pictures. Please try again in a moment.")
					return
				}
				n = max(n, uploadBytes)
			}
		}
		r.Body = http.MaxBytesReader(w, r.Body, n)
		mux.ServeHTTP(w, r)
	})
}

// PostNumber reads the post id in value, a parameter called name of a
// request, spelled as retwis.ParseID reads it: 0 when value is empty.
func PostNumber(value, name string) (int64, error) {
	if value == "" {
		return 0, nil
	}
	n, ok := retwis.ParseID(value)
	if !ok {
		return 0, retwis.Errorf(retwis.Invalid, "%s must be a post number.", name)
	}
	return n, nil
}

// FormRefused settles the answer to a form that failed with err: status
// is what ParseForm said (0 if the form was read), else err's kind
// decides. A failure of the server (5xx) is answered here, and ok is
// false; otherwise the caller shows the form again with status, its
// Retry-After set if a rate limit refused it.
func (k *Kit) FormRefused(w http.ResponseWriter, r *http.Request, status int, err error) (int, bool) {
	if status == 0 {
		status = middleware.StatusOf(err)
	}
	if status >= 500 {
		k.MW.Fail(w, r, err)
		return status, false
	}
	middleware.SetRetryAfter(w, err)
	return status, true
}
