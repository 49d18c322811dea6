package main

import (
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"testing"

	"github.com/retwis/retwis/internal/testkit/must"
)

// user is a browser with its own cookies.
type user struct {
	t      *testing.T
	base   string
	client *http.Client
}

func newUser(t *testing.T, base string) *user {
	jar := must.Value(cookiejar.New(nil))(t)
	return &user{t: t, base: base, client: &http.Client{Jar: jar}}
}

// post sends a form and checks that it was accepted (a redirect, followed).
func (u *user) post(path string, form url.Values) {
	u.t.Helper()
	res, err := u.client.PostForm(u.base+path, form)
	if err != nil {
		u.t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		u.t.Fatalf("POST %s: %s", path, res.Status)
	}
}

// get returns the status and body of a page.
func (u *user) get(path string) (int, string) {
	u.t.Helper()
	res, err := u.client.Get(u.base + path)
	if err != nil {
		u.t.Fatal(err)
	}
	defer res.Body.Close()
	b := must.Value(io.ReadAll(res.Body))(u.t)
	return res.StatusCode, string(b)
}

// signUp registers name, with a password made from it, and keeps the
// cookie.
func (u *user) signUp(name string) {
	u.t.Helper()
	pass := "password-" + name
	u.post("/register", url.Values{"username": {name}, "password": {pass}, "password2": {pass}})
}
