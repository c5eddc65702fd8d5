package docsnippets

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExamplesListed protects docs/documentation.md's table of runnable
// examples from drift: every Example function of the module (outside
// testdata and nested modules) is listed there under its go doc name
// (ExampleClient_GetTranscript as `Client.GetTranscript`; a lower-case
// suffix such as _insecureHTTP names a variant of the same entry), and
// every file holding examples is named.
func TestExamplesListed(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join(root, "docs", "documentation.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(doc), "## Examples")
	if !ok {
		t.Fatal("docs/documentation.md has no \"## Examples\" section")
	}
	section, _, _ = strings.Cut(section, "\n## ")
	found := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") || isModule(path)) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		listedFile := false
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Recv != nil || !strings.HasPrefix(fn.Name.Name, "Example") {
				continue
			}
			found++
			if !listedFile {
				if !strings.Contains(section, "`"+rel+"`") && !strings.Contains(section, "`"+filepath.Base(rel)+"`") {
					t.Errorf("%s holds examples but docs/documentation.md's Examples table does not name it", rel)
				}
				listedFile = true
			}
			name := docName(fn.Name.Name)
			if name == "" {
				continue // Example, Example_suffix: the package's, described in words
			}
			if !strings.Contains(section, "`"+name+"`") {
				t.Errorf("%s: %s is not listed as `%s` in docs/documentation.md's Examples table", rel, fn.Name.Name, name)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if found < 20 {
		t.Fatalf("found %d Example functions; the walk must reach the module's packages", found)
	}
}

// docName returns the go doc name an Example function documents: "" for the
// package's own examples, "Client.GetTranscript" for
// ExampleClient_GetTranscript, "NewClient" for ExampleNewClient_insecureHTTP.
func docName(fn string) string {
	parts := strings.Split(strings.TrimPrefix(fn, "Example"), "_")
	if parts[0] == "" {
		return ""
	}
	name := parts[0]
	if len(parts) > 1 && parts[1] != "" && parts[1][0] >= 'A' && parts[1][0] <= 'Z' {
		name += "." + parts[1]
	}
	return name
}

// isModule reports whether dir holds a go.mod of its own: a nested module
// such as api/conformance, outside this one.
func isModule(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, "go.mod"))
	return err == nil
}
