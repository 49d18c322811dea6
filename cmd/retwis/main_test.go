package main

import (
	"bytes"
	"go/parser"
	"go/token"
	"strings"
	"testing"
)

// TestUsageListsEveryCommand checks that every subcommand the
// dispatcher knows is listed by `retwis help` and in the package
// documentation (go doc), and that the documentation lists no other.
func TestUsageListsEveryCommand(t *testing.T) {
	var out bytes.Buffer
	if code := run(t.Context(), []string{"help"}, &out, &out); code != 0 {
		t.Fatalf("retwis help: status %d\n%s", code, out.String())
	}
	f, err := parser.ParseFile(token.NewFileSet(), "main.go", nil, parser.ParseComments|parser.PackageClauseOnly)
	if err != nil {
		t.Fatal(err)
	}
	documented := map[string]bool{}
	for line := range strings.Lines(f.Doc.Text()) {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "retwis "); ok {
			documented[strings.Fields(rest)[0]] = true
		}
	}
	for _, c := range commands {
		if !strings.Contains(out.String(), "\n  "+c.name+" ") {
			t.Errorf("retwis help does not list %s:\n%s", c.name, out.String())
		}
		if !documented[c.name] {
			t.Errorf("the package documentation (main.go) does not list retwis %s", c.name)
		}
		delete(documented, c.name)
	}
	delete(documented, "help")
	for name := range documented {
		t.Errorf("the package documentation lists retwis %s, which the dispatcher does not know", name)
	}
}

// TestHelpCommand checks that `retwis help CMD` shows the flags of CMD.
func TestHelpCommand(t *testing.T) {
	var out bytes.Buffer
	if code := run(t.Context(), []string{"help", "load"}, &out, &out); code != 0 {
		t.Fatalf("retwis help load: status %d\n%s", code, out.String())
	}
	if !strings.Contains(out.String(), "Usage: retwis load") {
		t.Fatalf("retwis help load shows:\n%s", out.String())
	}
	out.Reset()
	if code := run(t.Context(), []string{"help", "nope"}, &out, &out); code != 2 || !strings.Contains(out.String(), `unknown command "nope"`) {
		t.Fatalf("retwis help nope: status %d\n%s", code, out.String())
	}
}
