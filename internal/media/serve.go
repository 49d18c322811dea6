package media

import (
	"errors"
	"io"
	"io/fs"
	"net/http"
	"strconv"
	"strings"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/media/imaging"
	"github.com/retwis/retwis/internal/store/schema"
)

// Routes mounts the files of media (retwis.MediaPrefix) and the avatars
// (retwis.AvatarPath) on mux.
func (m *Service) Routes(mux *http.ServeMux) {
	mux.HandleFunc("GET "+retwis.MediaPrefix+"{owner}/{id}/{file}", m.serveFile)
	mux.HandleFunc("GET /avatars/{id}", m.serveAvatar)
}

// immutable is the Cache-Control of a file: its name is never reused.
const immutable = "public, max-age=31536000, immutable"

// serveFile serves a media file by its name, which only retwis makes
// (owner and id are numbers, the file one of the names an attachment
// has), with its content type, never sniffed, cached for good.
func (m *Service) serveFile(w http.ResponseWriter, r *http.Request) {
	owner, err1 := strconv.ParseInt(r.PathValue("owner"), 10, 64)
	id, err2 := strconv.ParseInt(r.PathValue("id"), 10, 64)
	file := r.PathValue("file")
	base, ext, _ := strings.Cut(file, ".")
	if i := strings.LastIndexByte(base, '-'); i >= 0 && validSecret(base[:i]) {
		base = base[i+1:]
	}
	ctype := retwis.MediaType(ext)
	if err1 != nil || err2 != nil || owner < 0 || id <= 0 || (base != "original" && base != "small") || ctype == "" {
		http.NotFound(w, r)
		return
	}
	name := strconv.FormatInt(owner, 10) + "/" + strconv.FormatInt(id, 10) + "/" + file
	etag := `"` + name + `"`
	h := w.Header()
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", "default-src 'none'; sandbox")
	if r.Header.Get("If-None-Match") == etag {
		h.Set("Cache-Control", immutable)
		w.WriteHeader(http.StatusNotModified)
		return
	}
	rc, size, err := m.blobs.Open(r.Context(), name)
	if errors.Is(err, fs.ErrNotExist) {
		http.NotFound(w, r)
		return
	}
	if err != nil {
		m.opts.Log.Warn("reading a media file", "name", name, "err", err)
		http.Error(w, "This picture cannot be read right now. Please try again in a moment.", http.StatusServiceUnavailable)
		return
	}
	defer rc.Close()
	h.Set("Content-Type", ctype)
	h.Set("Content-Length", strconv.FormatInt(size, 10))
	h.Set("Cache-Control", immutable)
	h.Set("ETag", etag)
	if r.Method == http.MethodHead {
		return
	}
	io.Copy(w, rc) // a client gone is no error of ours
}

// avatarSide is the side of a generated avatar, in pixels.
const avatarSide = 120

// serveAvatar serves user id's avatar: a redirection to the picture they
// uploaded, or the picture made from their id, cached a while (an
// avatar may change).
func (m *Service) serveAvatar(w http.ResponseWriter, r *http.Request) {
	uid, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil || uid <= 0 {
		http.NotFound(w, r)
		return
	}
	a, err := m.st.Picture(r.Context(), uid, schema.FieldAvatar)
	if err != nil {
		http.Error(w, retwis.ErrorMessage(err), http.StatusServiceUnavailable)
		return
	}
	h := w.Header()
	h.Set("Cache-Control", "public, max-age=300")
	if a != nil {
		http.Redirect(w, r, a.SmallPath(), http.StatusFound)
		return
	}
	etag := `"avatar-` + strconv.FormatInt(uid, 10) + `"`
	h.Set("ETag", etag)
	if r.Header.Get("If-None-Match") == etag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	h.Set("Content-Type", "image/png")
	h.Set("X-Content-Type-Options", "nosniff")
	w.Write(m.avatars.LoadOrMake(uid, func(uid int64) []byte { return imaging.Avatar(uid, avatarSide) }))
}

// contentType is the content type of a media file by its name ("": not
// one retwis makes).
func contentType(name string) string {
	dot := strings.LastIndexByte(name, '.')
	if dot < 0 {
		return ""
	}
	return retwis.MediaType(name[dot+1:])
}

// validSecret reports whether s may be an attachment's Secret (what
// Begin makes: base32 of crypto/rand, lower-cased).
func validSecret(s string) bool {
	if s == "" || len(s) > 32 {
		return false
	}
	for _, c := range s {
		if (c < 'a' || c > 'z') && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}
