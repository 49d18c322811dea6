package bench

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestCheck(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "a-file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	ok := Options{URL: "http://127.0.0.1:1", Connections: 1, Duration: time.Second, Scenarios: Scenarios()}
	for _, tc := range []struct {
		change func(*Options)
		want   string // "" for no error
	}{
		{func(*Options) {}, ""},
		{func(o *Options) { o.Curves = filepath.Join(dir, "new", "curves") }, ""},
		{func(o *Options) { o.Scenarios = []string{"home", "homepage"} }, `unknown scenario "homepage"`},
		{func(o *Options) { o.Curves = filepath.Join(file, "curves") }, "curves directory"},
		{func(o *Options) { o.Connections = 0 }, "positive"},
		{func(o *Options) { o.Seed, o.Users, o.HomeCap = true, 100, 5 }, "home timeline cap"},
	} {
		o := ok
		tc.change(&o)
		err := o.Check()
		if (err == nil) != (tc.want == "") || (err != nil && !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("Check(%+v) = %v; want %q", o, err, tc.want)
		}
	}
	if entries, _ := os.ReadDir(filepath.Join(dir, "new", "curves")); len(entries) != 0 {
		t.Errorf("checking the curves directory left %v in it", entries)
	}
}

func TestUniqueName(t *testing.T) {
	seen := map[string]bool{}
	for range 1000 {
		name := uniqueName("follows10000")
		if seen[name] || len(name) > 32 {
			t.Fatalf("name %q repeated or too long for a username", name)
		}
		seen[name] = true
	}
}
