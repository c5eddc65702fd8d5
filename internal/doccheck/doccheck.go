// Package doccheck finds exported identifiers that carry no doc comment, so a
// test can keep every name a user sees in go doc explained.
//
// It reads source with go/parser and go/ast only; it does not type-check, so it
// works on any directory of Go files, including testdata.
package doccheck

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Missing is one exported identifier without a doc comment.
type Missing struct {
	// Pos is the identifier's file:line:column, with the file path as given
	// to [Dir] joined with the file name.
	Pos token.Position
	// Kind is what the name declares: "package", "type", "func", "method",
	// "const", "var", "field" or "interface method".
	Kind string
	// Name is the identifier as go doc would name it: "Client",
	// "Client.Do" for a method, "Options.Timeout" for a field,
	// "Options.Retry.Max" for a field of a nested anonymous struct.
	Name string
}

// String formats m as "file:line: kind Name has no doc comment", the form a
// test failure prints.
func (m Missing) String() string {
	return fmt.Sprintf("%s:%d: %s %s has no doc comment", m.Pos.Filename, m.Pos.Line, m.Kind, m.Name)
}

// Dir reports the exported identifiers of the Go package in dir that have no
// doc comment. Test files (_test.go) and package main are skipped: neither is
// part of an importable API. The result is sorted by file and line.
//
// What counts as documented:
//   - a package: a package comment in at least one of its files;
//   - a type, func or method: a comment directly above it; for a type in a
//     parenthesised group, a comment above the group counts too (go doc
//     shows it for each type of the group that has none of its own);
//   - a const or var: a comment above it, a comment at the end of its line, or
//     a comment above its parenthesised group (go doc shows the group with it);
//   - a struct field or interface method: a comment above it or at the end of
//     its line. Fields are checked in exported struct types, recursively through
//     anonymous struct types; embedded fields count as fields named after
//     their type.
//
// Methods are checked when their receiver's base type is exported.
func Dir(dir string) ([]Missing, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	var out []Missing
	var (
		pkgName   string
		pkgPos    token.Pos // the package clause of the first file
		pkgDocced bool
	)
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.ParseComments)
		if err != nil {
			return nil, fmt.Errorf("doccheck: %w", err)
		}
		if f.Name.Name == "main" || ignored(f) {
			continue
		}
		if pkgName == "" {
			pkgName, pkgPos = f.Name.Name, f.Package
		}
		pkgDocced = pkgDocced || f.Doc != nil
		out = append(out, file(fset, f)...)
	}
	if pkgName != "" && !pkgDocced {
		out = append(out, Missing{Pos: fset.Position(pkgPos), Kind: "package", Name: pkgName})
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Pos.Filename != out[j].Pos.Filename {
			return out[i].Pos.Filename < out[j].Pos.Filename
		}
		return out[i].Pos.Offset < out[j].Pos.Offset
	})
	return out, nil
}

// Packages lists the directories under root that hold an importable package a
// user of the module can reach: every directory with a non-test .go file,
// except those named internal, testdata or vendor, those whose name starts
// with "." or "_", and nested modules (a directory with its own go.mod),
// with everything below them. Package main directories are listed too; [Dir]
// reports nothing for them.
func Packages(root string) ([]string, error) {
	var dirs []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		base := d.Name()
		if path != root && (base == "internal" || base == "testdata" || base == "vendor" ||
			strings.HasPrefix(base, ".") || strings.HasPrefix(base, "_")) {
			return filepath.SkipDir
		}
		if path != root {
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
				return filepath.SkipDir // another module
			}
		}
		matches, err := filepath.Glob(filepath.Join(path, "*.go"))
		if err != nil {
			return err
		}
		for _, m := range matches {
			if !strings.HasSuffix(m, "_test.go") {
				dirs = append(dirs, path)
				break
			}
		}
		return nil
	})
	return dirs, err
}

// ignored reports whether f carries a //go:build ignore constraint, the
// convention for generator programs kept beside a package.
func ignored(f *ast.File) bool {
	for _, cg := range f.Comments {
		if cg.Pos() >= f.Package {
			break
		}
		for _, c := range cg.List {
			if strings.HasPrefix(c.Text, "//go:build") && strings.Contains(c.Text, "ignore") {
				return true
			}
		}
	}
	return false
}

func file(fset *token.FileSet, f *ast.File) []Missing {
	var out []Missing
	miss := func(pos token.Pos, kind, name string) {
		out = append(out, Missing{Pos: fset.Position(pos), Kind: kind, Name: name})
	}
	for _, decl := range f.Decls {
		switch d := decl.(type) {
		case *ast.FuncDecl:
			if !d.Name.IsExported() {
				continue
			}
			if d.Recv == nil {
				if d.Doc == nil {
					miss(d.Name.Pos(), "func", d.Name.Name)
				}
				continue
			}
			recv := receiverName(d.Recv)
			if recv == "" || !ast.IsExported(recv) {
				continue
			}
			if d.Doc == nil {
				miss(d.Name.Pos(), "method", recv+"."+d.Name.Name)
			}
		case *ast.GenDecl:
			for _, spec := range d.Specs {
				switch s := spec.(type) {
				case *ast.TypeSpec:
					if !s.Name.IsExported() {
						continue
					}
					if s.Doc == nil && d.Doc == nil {
						miss(s.Name.Pos(), "type", s.Name.Name)
					}
					out = append(out, members(fset, s.Name.Name, s.Type)...)
				case *ast.ValueSpec:
					kind := "var"
					if d.Tok == token.CONST {
						kind = "const"
					}
					documented := s.Doc != nil || s.Comment != nil || d.Doc != nil
					for _, n := range s.Names {
						if n.IsExported() && !documented {
							miss(n.Pos(), kind, n.Name)
						}
					}
				}
			}
		}
	}
	return out
}

// members reports the undocumented exported fields of a struct type and
// methods of an interface type named prefix.
func members(fset *token.FileSet, prefix string, typ ast.Expr) []Missing {
	var out []Missing
	switch t := typ.(type) {
	case *ast.StructType:
		for _, f := range t.Fields.List {
			documented := f.Doc != nil || f.Comment != nil
			names := f.Names
			if len(names) == 0 { // embedded
				if n := embeddedName(f.Type); n != nil {
					names = []*ast.Ident{n}
				}
			}
			for _, n := range names {
				if !n.IsExported() {
					continue
				}
				if !documented {
					out = append(out, Missing{Pos: fset.Position(n.Pos()), Kind: "field", Name: prefix + "." + n.Name})
				}
				out = append(out, members(fset, prefix+"."+n.Name, f.Type)...)
			}
		}
	case *ast.InterfaceType:
		for _, m := range t.Methods.List {
			if len(m.Names) == 0 {
				continue // embedded interface or type constraint
			}
			documented := m.Doc != nil || m.Comment != nil
			for _, n := range m.Names {
				if n.IsExported() && !documented {
					out = append(out, Missing{Pos: fset.Position(n.Pos()), Kind: "interface method", Name: prefix + "." + n.Name})
				}
			}
		}
	case *ast.StarExpr:
		return members(fset, prefix, t.X)
	case *ast.ArrayType:
		return members(fset, prefix, t.Elt)
	case *ast.MapType:
		return members(fset, prefix, t.Value)
	}
	return out
}

// embeddedName is the field name an embedded type gets: T, *T, pkg.T, T[P].
func embeddedName(e ast.Expr) *ast.Ident {
	switch t := e.(type) {
	case *ast.Ident:
		return t
	case *ast.StarExpr:
		return embeddedName(t.X)
	case *ast.SelectorExpr:
		return t.Sel
	case *ast.IndexExpr:
		return embeddedName(t.X)
	case *ast.IndexListExpr:
		return embeddedName(t.X)
	}
	return nil
}

// receiverName is the base type name of a method receiver: T for T, *T, T[P].
func receiverName(recv *ast.FieldList) string {
	if recv == nil || len(recv.List) == 0 {
		return ""
	}
	if n := embeddedName(recv.List[0].Type); n != nil {
		return n.Name
	}
	return ""
}
