package retwis_test

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// module is this module's path, the prefix of its packages' import paths.
const module = "github.com/retwis/retwis"

// TestArchitectureImports keeps the table of docs/ARCHITECTURE.md true:
// every package of the module has a row, every row names a package (or
// a module of its own), and the packages a row says it may import are
// exactly those of this module it imports (tests aside).
func TestArchitectureImports(t *testing.T) {
	t.Parallel()
	documented := readRooms(t, "docs/ARCHITECTURE.md")
	actual := moduleImports(t)
	for pkg, imports := range actual {
		want, ok := documented[pkg]
		if !ok {
			t.Errorf("docs/ARCHITECTURE.md has no row for %s (it imports %v)", pkg, imports)
			continue
		}
		if !slices.Equal(want, imports) {
			t.Errorf("docs/ARCHITECTURE.md says %s may import %v; it imports %v", pkg, want, imports)
		}
	}
	for pkg := range documented {
		if _, ok := actual[pkg]; !ok && !isModule(pkg) {
			t.Errorf("docs/ARCHITECTURE.md has a row for %s, which is no package of the module", pkg)
		}
	}
}

// cell is a package named in a table cell: `path`.
var cell = regexp.MustCompile("`([a-z0-9/_.]+)`")

// readRooms returns, by package, the packages of this module the table
// under "## The rooms" of the document at path says it may import,
// sorted ("retwis" for the root).
func readRooms(t *testing.T, path string) map[string][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rooms := map[string][]string{}
	inTable := false
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "## ") {
			inTable = line == "## The rooms"
			continue
		}
		if !inTable || !strings.HasPrefix(line, "| `") {
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		if len(cells) != 3 {
			t.Fatalf("%s: a row of the rooms table has %d cells, not 3: %s", path, len(cells), line)
		}
		name := cell.FindStringSubmatch(cells[0])
		if name == nil {
			t.Fatalf("%s: no package in the first cell of %s", path, line)
		}
		var imports []string
		for _, m := range cell.FindAllStringSubmatch(cells[2], -1) {
			imports = append(imports, m[1])
		}
		slices.Sort(imports)
		rooms[name[1]] = imports
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(rooms) == 0 {
		t.Fatalf("%s: no table of rooms under \"## The rooms\"", path)
	}
	return rooms
}

// moduleImports returns, by package of the module, the packages of the
// module it imports (tests aside), sorted; the root is "retwis".
func moduleImports(t *testing.T) map[string][]string {
	t.Helper()
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}}|{{join .Imports ","}}`, "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	short := func(path string) string {
		if path == module {
			return "retwis"
		}
		return strings.TrimPrefix(path, module+"/")
	}
	pkgs := map[string][]string{}
	for line := range strings.Lines(strings.TrimSpace(string(out))) {
		pkg, imports, _ := strings.Cut(strings.TrimSpace(line), "|")
		own := []string{}
		for imp := range strings.SplitSeq(imports, ",") {
			if imp == module || strings.HasPrefix(imp, module+"/") {
				own = append(own, short(imp))
			}
		}
		slices.Sort(own)
		pkgs[short(pkg)] = own
	}
	return pkgs
}

// isModule reports whether dir holds a module of its own (a go.mod).
func isModule(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, "go.mod"))
	return err == nil
}
