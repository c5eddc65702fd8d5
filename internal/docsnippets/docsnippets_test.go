package docsnippets

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// root is the repository's root, seen from this package.
var root = filepath.Join("..", "..")

// docs returns the snippets of README.md and docs/*.md, each named by its
// path relative to the repository's root.
func docs(t *testing.T) []Snippet {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	files = append([]string{filepath.Join(root, "README.md")}, files...)
	var all []Snippet
	for _, f := range files {
		snippets, err := Extract(f)
		if err != nil {
			t.Fatal(err)
		}
		rel, err := filepath.Rel(root, f)
		if err != nil {
			t.Fatal(err)
		}
		for i := range snippets {
			snippets[i].File = filepath.ToSlash(rel)
		}
		all = append(all, snippets...)
	}
	return all
}

// TestDocSnippetsCompile protects the promise that every ```go block of
// README.md and docs/*.md compiles against the code as it is: a renamed
// option, a removed type or a changed signature fails here, naming the
// Markdown file and line.
func TestDocSnippetsCompile(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go vet on a generated module")
	}
	snippets := docs(t)
	checked := map[string]int{}
	for _, s := range snippets {
		if s.Checked() {
			checked[s.File]++
		}
		if strings.HasPrefix(s.Info, "go") && s.Info != "go" && s.Info != "go fragment" {
			t.Errorf("%s:%d: info string %q: a Go block is \"go\" (compiled) or \"go fragment\" (not)", s.File, s.Line-1, s.Info)
		}
	}
	// The walk must find the documents' snippets; if it stopped, this test
	// would pass while checking nothing.
	for _, f := range []string{"README.md", "docs/auth.md", "docs/server.md", "docs/webhooks.md", "docs/testing.md"} {
		if checked[f] == 0 {
			t.Errorf("no checked Go snippet found in %s", f)
		}
	}
	if err := Check(root, t.TempDir(), snippets); err != nil {
		t.Errorf("the documents' Go snippets do not compile (mark a block that cannot, by nature, as \"go fragment\"; see CONTRIBUTING.md):\n%v", err)
	}
}

// TestCheckNamesTheBrokenSnippet protects the checker itself: on a document
// with a good snippet of each kind, a fragment and two broken snippets, it
// fails, and its report names the broken snippets' file and lines and
// nothing else.
func TestCheckNamesTheBrokenSnippet(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go vet on a generated module")
	}
	const file = "testdata/broken.md"
	snippets, err := Extract(file)
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]int{}
	for _, s := range snippets {
		kinds[s.Info]++
	}
	if kinds["go"] != 6 || kinds["go fragment"] != 1 || kinds["sh"] != 1 {
		t.Fatalf("extracted %v, want 6 go, 1 go fragment, 1 sh", kinds)
	}
	err = Check(root, t.TempDir(), snippets)
	if err == nil {
		t.Fatal("Check passed a document with broken snippets")
	}
	report := err.Error()
	// The lines of testdata/broken.md that hold the two errors.
	lines := lineOf(t, file, "BROKEN")
	if len(lines) != 2 {
		t.Fatalf("testdata/broken.md must mark two broken lines, found %v", lines)
	}
	for _, n := range lines {
		if !strings.Contains(report, fmt.Sprintf("%s:%d:", file, n)) {
			t.Errorf("the report does not name %s:%d:\n%s", file, n, report)
		}
	}
	for _, m := range regexp.MustCompile(`broken\.md:(\d+):`).FindAllStringSubmatch(report, -1) {
		if m[1] != fmt.Sprint(lines[0]) && m[1] != fmt.Sprint(lines[1]) {
			t.Errorf("the report names line %s, which is not broken:\n%s", m[1], report)
		}
	}
}

// lineOf returns the 1-based lines of file that contain marker.
func lineOf(t *testing.T, file, marker string) []int {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var lines []int
	for i, l := range strings.Split(string(data), "\n") {
		if strings.Contains(l, marker) {
			lines = append(lines, i+1)
		}
	}
	return lines
}

// TestSourceWrapsStatements pins how a statement snippet is wrapped: the
// setup comment's parameters, the imports it uses, "_ =" for the variables
// it declares, the closing "return nil", and the //line directive.
func TestSourceWrapsStatements(t *testing.T) {
	src, err := Source(Snippet{File: "docs/x.md", Line: 7, Info: "go", Setup: "ctx context.Context",
		Code: "c, err := scribe.NewClient(\"https://x\")\n_ = ctx\n"})
	if err != nil {
		t.Fatal(err)
	}
	want := "package snippet\n\nimport context \"context\"\nimport scribe \"github.com/scribehq/scribe-go\"\n\n" +
		"func _(ctx context.Context) error {\n//line docs/x.md:7\nc, err := scribe.NewClient(\"https://x\")\n_ = ctx\n\t_ = c\n\t_ = err\n\treturn nil\n}\n"
	if string(src) != want {
		t.Errorf("Source =\n%s\nwant\n%s", src, want)
	}
}
