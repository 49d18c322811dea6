package cards

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Limits of what a Fetcher reads.
const (
	maxPage      = 1 << 20 // bytes of a page (or an oEmbed document) read at most
	maxImage     = 8 << 20 // bytes of a picture
	maxRedirects = 3
)

// userAgent names retwis to the sites it fetches previews from.
const userAgent = "retwis (link preview; +https://github.com/retwis/retwis)"

// ErrNotAllowed is the error of a URL a Fetcher does not fetch: not
// http(s), with a user name or password, or (unless private addresses
// are allowed) on a port other than 80 and 443.
var ErrNotAllowed = errors.New("cards: URL not allowed")

// ErrTooManyRedirects is the error of a page that redirects more than
// three times.
var ErrTooManyRedirects = errors.New("cards: too many redirects")

// errTooLarge is the error of an answer longer than its limit.
var errTooLarge = errors.New("cards: answer too large")

// check returns u if a Fetcher may fetch it (see ErrNotAllowed).
func (f *Fetcher) check(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNotAllowed, err)
	}
	switch {
	case u.Scheme != "http" && u.Scheme != "https", u.Host == "", u.Hostname() == "":
		return nil, fmt.Errorf("%w: %q is not an http(s) URL", ErrNotAllowed, raw)
	case u.User != nil:
		return nil, fmt.Errorf("%w: %q has a user", ErrNotAllowed, raw)
	case !f.opts.AllowPrivate && u.Port() != "" && u.Port() != "80" && u.Port() != "443":
		return nil, fmt.Errorf("%w: port %s", ErrNotAllowed, u.Port())
	}
	return u, nil
}

// get fetches raw, following up to maxRedirects redirects (each URL
// checked, each connection by the client), and returns the final URL
// and up to limit bytes of its body, if its content type is one of
// types (a type ending in "/" takes any subtype); a longer body is an
// error if cut is not set, else it is cut at limit.
func (f *Fetcher) get(ctx context.Context, raw string, limit int64, cut bool, types ...string) (*url.URL, []byte, error) {
	ctx, cancel := context.WithTimeout(ctx, f.opts.Timeout)
	defer cancel()
	for range maxRedirects + 1 {
		u, err := f.check(raw)
		if err != nil {
			return nil, nil, err
		}
		resp, err := f.do(ctx, u, types)
		if err != nil {
			return nil, nil, err
		}
		if loc, ok := redirect(resp); ok {
			resp.Body.Close()
			if raw = Resolve(u, loc); raw == "" {
				return nil, nil, fmt.Errorf("%w: a redirect to %q", ErrNotAllowed, loc)
			}
			continue
		}
		defer resp.Body.Close()
		if err := accept(resp, types); err != nil {
			return nil, nil, fmt.Errorf("cards: %s: %w", u.Redacted(), err)
		}
		body, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
		switch {
		case err != nil:
			return nil, nil, fmt.Errorf("cards: %s: %w", u.Redacted(), err)
		case int64(len(body)) > limit && !cut:
			return nil, nil, fmt.Errorf("cards: %s: %w", u.Redacted(), errTooLarge)
		}
		return u, body[:min(int64(len(body)), limit)], nil
	}
	return nil, nil, fmt.Errorf("%w: more than %d", ErrTooManyRedirects, maxRedirects)
}

// do sends a GET of u through the client.
func (f *Fetcher) do(ctx context.Context, u *url.URL, types []string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, fmt.Errorf("cards: %w", err)
	}
	req.Header.Set("User-Agent", userAgent)
	accepted := make([]string, len(types))
	for i, t := range types {
		accepted[i] = t
		if strings.HasSuffix(t, "/") {
			accepted[i] += "*"
		}
	}
	req.Header.Set("Accept", strings.Join(accepted, ", "))
	resp, err := f.opts.Client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("cards: %w", err)
	}
	return resp, nil
}

// redirect returns where resp sends to, if it is a redirect.
func redirect(resp *http.Response) (string, bool) {
	switch resp.StatusCode {
	case http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther,
		http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
		return resp.Header.Get("Location"), true
	}
	return "", false
}

// accept fails an answer that is not a 200 of one of types.
func accept(resp *http.Response, types []string) error {
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("status %d", resp.StatusCode)
	}
	ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	for _, t := range types {
		if ct == t || strings.HasSuffix(t, "/") && strings.HasPrefix(ct, t) {
			return nil
		}
	}
	return fmt.Errorf("content type %q", ct)
}

// defaultTimeout bounds the fetch of a page, its oEmbed document or
// its picture, each, redirects included.
const defaultTimeout = 5 * time.Second
