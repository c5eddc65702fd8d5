package docsnippets

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestGettingStartedRequiresAreTidys protects the go.mod lines that
// docs/getting-started.md shows: a module that replaces the SDK (and the
// Redis dedupe store) with a checkout, tidied by the go command, requires
// exactly the versions the page says.
func TestGettingStartedRequiresAreTidys(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go mod tidy, which may download the dependencies")
	}
	page, err := os.ReadFile(filepath.Join(root, "docs", "getting-started.md"))
	if err != nil {
		t.Fatal(err)
	}
	checkout, err := filepath.Abs(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		imports []string
	}{
		{"the SDK", []string{"github.com/scribehq/scribe-go"}},
		{"the SDK and the Redis store", []string{"github.com/scribehq/scribe-go", "github.com/scribehq/scribe-go/webhook/redisdedupe"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			src := "package main\n\nimport (\n"
			for _, p := range tc.imports {
				src += "\t_ " + `"` + p + `"` + "\n"
			}
			src += ")\n\nfunc main() {}\n"
			if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			goCmd(t, dir, "mod", "init", "example.com/plugin")
			for _, p := range tc.imports {
				goCmd(t, dir, "mod", "edit", "-replace", p+"="+filepath.Join(checkout, strings.TrimPrefix(p, "github.com/scribehq/scribe-go")))
			}
			goCmd(t, dir, "mod", "tidy")
			mod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range tc.imports {
				m := regexp.MustCompile(`(?m)^(?:require )?\s*` + regexp.QuoteMeta(p) + ` (\S+)$`).FindStringSubmatch(string(mod))
				if m == nil {
					t.Fatalf("go.mod requires no %s:\n%s", p, mod)
				}
				line := p + " " + m[1]
				if !strings.Contains(string(page), line) {
					t.Errorf("go mod tidy wrote %q; docs/getting-started.md does not show it", line)
				}
			}
		})
	}
}

func goCmd(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// TestNoGoRunInTheBackground protects the docs' way of starting a server
// or a receiver to leave running: the binary built with go build -o, whose
// PID is the server's. "go run ... &" runs it as a child of the go command,
// so killing the PID the shell gives leaves it running, its port taken.
func TestNoGoRunInTheBackground(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	more, err := filepath.Glob(filepath.Join(root, "examples", "*", "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	files = append(append(files, filepath.Join(root, "README.md")), more...)
	background := regexp.MustCompile(`go run [^#&|]*&(\s|$)`)
	for _, f := range files {
		text, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(text), "\n") {
			if background.MatchString(line) && !strings.Contains(line, `"go run ... &"`) {
				t.Errorf("%s:%d: %q runs go run in the background; build with go build -o and run the binary", f, i+1, strings.TrimSpace(line))
			}
		}
	}
}

// TestNodeExampleEnginesAreTheDocs protects the Node version the docs
// state for examples/webhook-receiver-node: its package.json's engines.
func TestNodeExampleEnginesAreTheDocs(t *testing.T) {
	pkg, err := os.ReadFile(filepath.Join(root, "examples", "webhook-receiver-node", "package.json"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`"node": ">=(\d+)"`).FindSubmatch(pkg)
	if m == nil {
		t.Fatalf("package.json has no engines.node of the form >=N:\n%s", pkg)
	}
	doc, err := os.ReadFile(filepath.Join(root, "docs", "webhooks.md"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "Node.js " + string(m[1]) + " or later"; !strings.Contains(string(doc), want) {
		t.Errorf("docs/webhooks.md does not say %q, as the example's engines (>=%s) do", want, m[1])
	}
}
