package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// TestSignUpShowsRules: the operator's rules, with their hints, are
// listed above the sign-up form, escaped, and still after a failed
// sign-up; without rules the form has no list.
func TestSignUpShowsRules(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	b := s.browser()
	if r := b.get("/"); strings.Contains(r.body, `class="rules"`) {
		t.Errorf("a list of rules without rules:\n%s", r.body)
	}
	for _, r := range [][2]string{{"Be kind", ""}, {"No <script> spam", "Nor ads."}} {
		if _, err := s.st.AddRule(t.Context(), r[0], r[1]); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{`<ol class="rules"><li>Be kind</li><li>No &lt;script&gt; spam <small>Nor ads.</small></li></ol>`}
	expect(t, b.get("/"), http.StatusOK, want...)
	failed := b.post("/register", url.Values{"username": {"bob"}, "password": {"password1"}, "password2": {"password2"}})
	expect(t, failed, failed.status, want...)
	if failed.status < 400 {
		t.Errorf("a sign-up with passwords that differ: %d", failed.status)
	}
}
