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

// TestLayering holds the code to the tree's import rules
// (docs/design/layering.md): of the scribetest tree, a package under
// internal/ imports only internal/state, and internal/state imports none,
// so nothing below imports the face and the state imports no layer above
// it; and the dev server (devserver) imports of the tree only the face,
// scribetest, so that it is built on the exported API alone.
func TestLayering(t *testing.T) {
	const tree = "github.com/scribehq/scribe-go/scribetest"
	for dir, allowed := range map[string]func(pkg, imp string) bool{
		"internal":  func(pkg, imp string) bool { return imp == tree+"/internal/state" && pkg != "internal/state" },
		"devserver": func(_, imp string) bool { return imp == tree },
	} {
		err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
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
				if (p == tree || strings.HasPrefix(p, tree+"/")) && !allowed(pkg, p) {
					t.Errorf("%s imports %s: of the tree, a package under internal/ imports only internal/state, "+
						"state imports none, and devserver imports only scribetest", path, p)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}
