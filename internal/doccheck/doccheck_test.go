package doccheck

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestExportedNamesDocumented protects the module's promise that go doc shows
// no undocumented exported name: every type, func, method, const, var, struct
// field and interface method exported by a package a user can import (the
// root package, api, auth, scribetest, webhook and any added later) carries a
// doc comment. A failure lists each offender as file:line.
func TestExportedNamesDocumented(t *testing.T) {
	root := filepath.Join("..", "..")
	dirs, err := Packages(root)
	if err != nil {
		t.Fatal(err)
	}
	// The walk must reach the packages users import; if it stopped finding
	// them, this test would pass while checking nothing.
	want := map[string]bool{".": false, "api": false, "auth": false, "scribetest": false, "scribetest/devserver": false, "webhook": false}
	var missing []string
	for _, dir := range dirs {
		rel, err := filepath.Rel(root, dir)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := want[filepath.ToSlash(rel)]; ok {
			want[filepath.ToSlash(rel)] = true
		}
		found, err := Dir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range found {
			name, err := filepath.Rel(root, m.Pos.Filename)
			if err != nil {
				name = m.Pos.Filename
			}
			m.Pos.Filename = filepath.ToSlash(name)
			missing = append(missing, m.String())
		}
	}
	for pkg, seen := range want {
		if !seen {
			t.Errorf("package %q was not checked: Packages(%q) = %q", pkg, root, dirs)
		}
	}
	if len(missing) > 0 {
		t.Errorf("%d exported names have no doc comment; say what each does (for a field: its unit, what its zero value means, which wire field it carries):\n%s",
			len(missing), strings.Join(missing, "\n"))
	}
}

// TestDirReportsEveryUndocumentedKind protects the checker itself: on a
// synthetic package holding each kind of exported name both documented and
// not, it reports exactly the undocumented ones, with their lines, and
// nothing from test files or unexported types.
func TestDirReportsEveryUndocumentedKind(t *testing.T) {
	dir := filepath.Join("testdata", "mod", "undoc")
	got, err := Dir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, m := range got {
		if filepath.Base(m.Pos.Filename) != "undoc.go" {
			t.Errorf("reported from %s, want only undoc.go (test files are not API): %v", m.Pos.Filename, m)
		}
		m.Pos.Filename = "undoc.go"
		lines = append(lines, m.String())
	}
	want := []string{
		"undoc.go:10: field Documented.Bare has no doc comment",
		"undoc.go:11: field Documented.A has no doc comment",
		"undoc.go:11: field Documented.B has no doc comment",
		"undoc.go:15: field Documented.Nested.Inner has no doc comment",
		"undoc.go:17: field Documented.Embedded has no doc comment",
		"undoc.go:18: field Documented.Pointer has no doc comment",
		"undoc.go:21: type Bare has no doc comment",
		"undoc.go:26: type NotInGroup has no doc comment",
		"undoc.go:44: interface method Iface.Bad has no doc comment",
		"undoc.go:57: func BareFunc has no doc comment",
		"undoc.go:64: method Documented.BareMethod has no doc comment",
		"undoc.go:66: method Generic.BareGeneric has no doc comment",
		"undoc.go:80: const BareConst has no doc comment",
		"undoc.go:90: const BareInBlock has no doc comment",
		"undoc.go:93: var BareVar has no doc comment",
		"undoc.go:93: var OtherVar has no doc comment",
	}
	if diff := cmp.Diff(want, lines); diff != "" {
		t.Errorf("Dir(%s) mismatch (-want +got):\n%s", dir, diff)
	}
}

// TestPackagesSkipsInternalAndTestOnly protects the scope of the module check:
// internal packages and directories holding only tests are not user-facing
// API and are not listed, while command directories are listed but Dir
// reports nothing for package main.
func TestPackagesSkipsInternalAndTestOnly(t *testing.T) {
	root := filepath.Join("testdata", "mod")
	dirs, err := Packages(root)
	if err != nil {
		t.Fatal(err)
	}
	var rel []string
	for _, d := range dirs {
		r, err := filepath.Rel(root, d)
		if err != nil {
			t.Fatal(err)
		}
		rel = append(rel, filepath.ToSlash(r))
	}
	if diff := cmp.Diff([]string{"cmd/tool", "nopkgdoc", "undoc"}, rel); diff != "" {
		t.Errorf("Packages(%s) mismatch (-want +got):\n%s", root, diff)
	}
	found, err := Dir(filepath.Join(root, "cmd", "tool"))
	if err != nil {
		t.Fatal(err)
	}
	if len(found) != 0 {
		t.Errorf("Dir on package main reported %v, want nothing", found)
	}
}

// TestDirReportsMissingPackageComment protects the package comment, the
// first thing go doc shows: a package none of whose files carries one is
// reported once, at its first file's package clause.
func TestDirReportsMissingPackageComment(t *testing.T) {
	dir := filepath.Join("testdata", "mod", "nopkgdoc")
	got, err := Dir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, m := range got {
		m.Pos.Filename = filepath.Base(m.Pos.Filename)
		lines = append(lines, m.String())
	}
	if diff := cmp.Diff([]string{"a.go:1: package nopkgdoc has no doc comment"}, lines); diff != "" {
		t.Errorf("Dir(%s) mismatch (-want +got):\n%s", dir, diff)
	}
}

// TestDirRejectsUnparsableSource protects against a silent pass: a file that
// does not parse is an error, not an empty report.
func TestDirRejectsUnparsableSource(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "broken.go"), []byte("package broken\n\nfunc {\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Dir(dir); err == nil {
		t.Fatal("Dir on a package that does not parse returned no error")
	}
}
