package scribetest_test

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// layers is the layering rule of doc.go and docs/design.md: each package of
// the scribetest tree with its layer. A package imports only packages of
// lower layers (the services of one layer never import each other), and
// nothing under internal/ imports the face.
var layers = map[string]int{
	"internal/clock": 0, "internal/index": 0,
	"internal/state": 1,
	"internal/authn": 2, "internal/idempotency": 2, "internal/ratelimit": 2, "internal/faults": 2,
	"internal/reqlog": 2, "internal/delivery": 2, "internal/fixtures": 2,
	"internal/httpapi": 3,
	".":                4,
}

const tree = "github.com/scribehq/scribe-go/scribetest"

// TestLayering holds the code to the layering rule, reading the imports of
// every non-test file of the tree.
func TestLayering(t *testing.T) {
	seen := map[string]bool{}
	err := filepath.WalkDir(".", func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		pkg := filepath.ToSlash(filepath.Dir(path))
		level, known := layers[pkg]
		if !known {
			t.Errorf("%s: package %s has no layer; add it to layers, doc.go and docs/design.md", path, pkg)
			return nil
		}
		seen[pkg] = true
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			dep, ok := strings.CutPrefix(p, tree+"/")
			if p == tree {
				dep, ok = ".", true
			}
			if !ok {
				continue
			}
			if l := layers[dep]; l >= level {
				t.Errorf("%s (layer %d) imports %s (layer %d): a package imports only packages of lower layers", path, level, dep, l)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for pkg := range layers {
		if !seen[pkg] {
			t.Errorf("layers names %s, which has no code", pkg)
		}
	}
	if n := len(layers); n < 6 {
		t.Errorf("%d packages", n)
	}
}
