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

// TestLayering holds the code to the tree's one import rule
// (docs/design/layering.md): of the scribetest tree, a package under
// internal/ imports only internal/state, and internal/state imports none.
// So nothing below imports the face, and the state imports no layer above it.
func TestLayering(t *testing.T) {
	const tree = "github.com/scribehq/scribe-go/scribetest"
	err := filepath.WalkDir("internal", func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		pkg := filepath.ToSlash(filepath.Dir(path))
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if p != tree && !strings.HasPrefix(p, tree+"/") {
				continue
			}
			if p != tree+"/internal/state" || pkg == "internal/state" {
				t.Errorf("%s imports %s: of the tree, a package under internal/ imports only internal/state, and state imports none", path, p)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
