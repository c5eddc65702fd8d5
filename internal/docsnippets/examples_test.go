package docsnippets

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/scribehq/scribe-go/internal/doccheck"
)

// TestExamplesListed protects CONTRIBUTING.md's table of runnable
// examples from drift: every Example function of the packages a user imports
// (those doccheck.Packages lists) is listed there under its go doc name
// (ExampleClient_GetTranscript as `Client.GetTranscript`; a lower-case
// suffix such as _insecureHTTP names a variant of the same entry), and
// every file holding examples is named.
func TestExamplesListed(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join(root, "CONTRIBUTING.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(doc), "## Examples")
	if !ok {
		t.Fatal("CONTRIBUTING.md has no \"## Examples\" section")
	}
	section, _, _ = strings.Cut(section, "\n## ")
	// The packages a user imports, as the doc comment check walks them:
	// internal, testdata and nested modules (api/conformance) are left out.
	dirs, err := doccheck.Packages(root)
	if err != nil {
		t.Fatal(err)
	}
	found := 0
	for _, dir := range dirs {
		files, err := filepath.Glob(filepath.Join(dir, "*_test.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, path := range files {
			f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
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
					if !strings.Contains(section, "`"+rel+"`") {
						t.Errorf("%s holds examples but CONTRIBUTING.md's Examples table does not name it", rel)
					}
					listedFile = true
				}
				name := docName(fn.Name.Name)
				if name == "" {
					continue // Example, Example_suffix: the package's, described in words
				}
				if !strings.Contains(section, "`"+name+"`") {
					t.Errorf("%s: %s is not listed as `%s` in CONTRIBUTING.md's Examples table", rel, fn.Name.Name, name)
				}
			}
		}
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
