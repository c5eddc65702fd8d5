// Package docsnippets checks that the Go snippets of the project's Markdown
// documents compile against the code as it is, so the docs cannot drift
// from the API unnoticed (CONTRIBUTING.md, "Documentation").
//
// Extract reads the fenced blocks of a Markdown file; Check writes every
// block whose info string is exactly "go" into a throwaway module that
// requires this one through a replace directive and runs go vet on it. The
// generated files carry //line directives, so every error names the
// Markdown file and line of the snippet.
//
// A snippet is one of:
//   - a whole file: it begins with a package clause and has its imports;
//   - declarations (func, type, var, const): placed in a file as they are;
//   - statements: placed in the body of "func _(SETUP) error", followed by
//     "return nil" unless they end with a return, and by "_ = v" for each
//     variable they declare at the top level, since a snippet shows how a
//     value is obtained, not always what is done with it.
//
// SETUP, the names a snippet uses without declaring them (ctx, t, a
// client...), comes from an HTML comment on the line right before the
// fence: <!-- go-snippet: ctx context.Context, t *testing.T -->, written as
// a Go parameter list. Imports are added from a fixed table of package
// names (KnownPackages) for the names the snippet uses as qualifiers.
//
// A block that cannot compile by nature (a signature listing, code with
// "..." in it) is marked "go fragment" and is not checked; any other
// language (sh, json) is ignored.
package docsnippets

import (
	"bufio"
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// KnownPackages maps the package names a statement or declaration snippet
// may use as qualifiers to their import paths.
var KnownPackages = map[string]string{
	"context":    "context",
	"rand":       "crypto/rand",
	"sql":        "database/sql",
	"errors":     "errors",
	"fmt":        "fmt",
	"io":         "io",
	"log":        "log",
	"maps":       "maps",
	"os":         "os",
	"slices":     "slices",
	"strings":    "strings",
	"sync":       "sync",
	"time":       "time",
	"testing":    "testing",
	"http":       "net/http",
	"httptest":   "net/http/httptest",
	"slog":       "log/slog",
	"json":       "encoding/json",
	"scribe":     "github.com/scribehq/scribe-go",
	"auth":       "github.com/scribehq/scribe-go/auth",
	"webhook":    "github.com/scribehq/scribe-go/webhook",
	"scribetest": "github.com/scribehq/scribe-go/scribetest",
	"devserver":  "github.com/scribehq/scribe-go/scribetest/devserver",
}

// Snippet is one fenced block of a Markdown file.
type Snippet struct {
	// File is the Markdown file's path as given to Extract.
	File string
	// Line is the 1-based line of the block's first line of code.
	Line int
	// Info is the fence's info string ("go", "go fragment", "sh", ...).
	Info string
	// Setup is the parameter list of a preceding <!-- go-snippet: ... -->
	// comment, "" when there is none.
	Setup string
	// Code is the block's content, without the fences.
	Code string
}

// Checked reports whether s is compiled by Check: its info string is
// exactly "go".
func (s Snippet) Checked() bool { return s.Info == "go" }

// pkgDir matches the generated package directory before a file name in go
// vet's report.
var pkgDir = regexp.MustCompile(`(?m)(^|\s)s\d{3}/`)

const setupPrefix = "<!-- go-snippet:"

// Extract returns the fenced code blocks of the Markdown file at path, in
// order. An unclosed fence is an error naming its line.
func Extract(path string) ([]Snippet, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var (
		out   []Snippet
		cur   *Snippet
		code  strings.Builder
		prev  string
		lines = bufio.NewScanner(bytes.NewReader(data))
		n     int
		open  int
	)
	lines.Buffer(nil, 1<<20)
	for lines.Scan() {
		n++
		line := lines.Text()
		switch {
		case cur == nil && strings.HasPrefix(line, "```"):
			cur = &Snippet{File: path, Line: n + 1, Info: strings.TrimSpace(strings.TrimPrefix(line, "```"))}
			if p := strings.TrimSpace(prev); strings.HasPrefix(p, setupPrefix) && strings.HasSuffix(p, "-->") {
				cur.Setup = strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(p, setupPrefix), "-->"))
			}
			open = n
			code.Reset()
		case cur != nil && strings.TrimSpace(line) == "```":
			cur.Code = code.String()
			out = append(out, *cur)
			cur = nil
		case cur != nil:
			code.WriteString(line)
			code.WriteByte('\n')
		}
		prev = line
	}
	if err := lines.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if cur != nil {
		return nil, fmt.Errorf("%s:%d: code fence never closed", path, open)
	}
	return out, nil
}

// Source returns the Go file Check compiles for s, with //line directives
// that map its code back to s.File and s.Line.
func Source(s Snippet) ([]byte, error) {
	line := fmt.Sprintf("//line %s:%d\n", filepath.ToSlash(s.File), s.Line)
	if strings.HasPrefix(strings.TrimSpace(s.Code), "package ") {
		return []byte(line + s.Code), nil
	}
	fset := token.NewFileSet()
	// Declarations, if the code parses as a file's body; else statements.
	asDecls := "package snippet\n\n" + line + s.Code
	if s.Setup == "" {
		if f, err := parser.ParseFile(fset, "", asDecls, 0); err == nil {
			return withImports(f, "package snippet\n\n", line+s.Code), nil
		}
	}
	body := line + s.Code
	wrapped := "package snippet\n\nfunc _(" + s.Setup + ") error {\n" + body + "}\n"
	f, err := parser.ParseFile(fset, "", wrapped, 0)
	if err != nil {
		return nil, fmt.Errorf("%s:%d: the snippet parses neither as declarations nor as statements: %v", s.File, s.Line, err)
	}
	fn := f.Decls[len(f.Decls)-1].(*ast.FuncDecl)
	var tail strings.Builder
	for _, name := range topLevelVars(fn.Body.List) {
		fmt.Fprintf(&tail, "\t_ = %s\n", name)
	}
	if n := len(fn.Body.List); n == 0 || !isReturn(fn.Body.List[n-1]) {
		tail.WriteString("\treturn nil\n")
	}
	return withImports(f, "package snippet\n\n", "func _("+s.Setup+") error {\n"+body+tail.String()+"}\n"), nil
}

// withImports returns header, an import declaration for every KnownPackages
// name f uses as a qualifier, and rest.
func withImports(f *ast.File, header, rest string) []byte {
	used := map[string]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok {
			if id, ok := sel.X.(*ast.Ident); ok {
				if _, known := KnownPackages[id.Name]; known {
					used[id.Name] = true
				}
			}
		}
		return true
	})
	var b strings.Builder
	b.WriteString(header)
	names := make([]string, 0, len(used))
	for name := range used {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		fmt.Fprintf(&b, "import %s %q\n", name, KnownPackages[name])
	}
	b.WriteString("\n")
	b.WriteString(rest)
	return []byte(b.String())
}

// topLevelVars returns the names the statements declare at their own level
// (:= and var), once each, "_" excluded.
func topLevelVars(stmts []ast.Stmt) []string {
	var names []string
	add := func(id *ast.Ident) {
		if id.Name != "_" && !slices.Contains(names, id.Name) {
			names = append(names, id.Name)
		}
	}
	for _, st := range stmts {
		switch st := st.(type) {
		case *ast.AssignStmt:
			if st.Tok == token.DEFINE {
				for _, e := range st.Lhs {
					if id, ok := e.(*ast.Ident); ok {
						add(id)
					}
				}
			}
		case *ast.DeclStmt:
			if gd, ok := st.Decl.(*ast.GenDecl); ok && gd.Tok == token.VAR {
				for _, spec := range gd.Specs {
					for _, id := range spec.(*ast.ValueSpec).Names {
						add(id)
					}
				}
			}
		}
	}
	return names
}

func isReturn(st ast.Stmt) bool {
	_, ok := st.(*ast.ReturnStmt)
	return ok
}

// Check compiles every checked snippet of snippets with go vet, in a
// temporary module under dir that requires the module at repo (its go.mod
// and go.sum are reused, with a replace directive pointing at repo). It
// returns nil when all compile, else an error holding go vet's report,
// whose positions are the snippets' Markdown files and lines.
func Check(repo, dir string, snippets []Snippet) error {
	repo, err := filepath.Abs(repo)
	if err != nil {
		return err
	}
	gomod, err := os.ReadFile(filepath.Join(repo, "go.mod"))
	if err != nil {
		return err
	}
	module, rest, ok := strings.Cut(string(gomod), "\n")
	modPath := strings.TrimSpace(strings.TrimPrefix(module, "module"))
	if !ok || !strings.HasPrefix(module, "module ") || modPath == "" {
		return fmt.Errorf("%s/go.mod: no module line first", repo)
	}
	mod := "module docsnippets.check\n" + rest +
		fmt.Sprintf("\nrequire %s v0.0.0\n\nreplace %s => %s\n", modPath, modPath, repo)
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(mod), 0o644); err != nil {
		return err
	}
	sum, err := os.ReadFile(filepath.Join(repo, "go.sum"))
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "go.sum"), sum, 0o644); err != nil {
		return err
	}
	var errs []error
	n := 0
	for _, s := range snippets {
		if !s.Checked() {
			continue
		}
		src, err := Source(s)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		pkg := filepath.Join(dir, fmt.Sprintf("s%03d", n))
		n++
		if err := os.Mkdir(pkg, 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(pkg, "snippet.go"), src, 0o644); err != nil {
			return err
		}
	}
	if n > 0 {
		cmd := exec.Command("go", "vet", "./...")
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod", "GOPROXY=off")
		if out, err := cmd.CombinedOutput(); err != nil {
			// A relative //line file name is reported under the generated
			// package's directory ("s003/README.md:42"); drop that part.
			out = pkgDir.ReplaceAll(out, []byte("$1"))
			errs = append(errs, fmt.Errorf("go vet on the snippets: %v\n%s", err, out))
		}
	}
	if len(errs) > 0 {
		var b strings.Builder
		for _, e := range errs {
			b.WriteString(e.Error())
			b.WriteString("\n")
		}
		return fmt.Errorf("%s", strings.TrimSpace(b.String()))
	}
	return nil
}
