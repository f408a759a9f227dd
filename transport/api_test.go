package transport_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestNoInternalTypesInAPI walks the exported API of every package of the module outside
// internal/ — exported functions and methods (parameters, results, type parameters),
// exported types (struct fields, interface methods, function signatures, aliases and
// underlying types) and exported variables and constants with a type — and fails on any
// type named from an internal/ package: a value of that type could not be built, named or
// passed on by a package outside the module.
func TestNoInternalTypesInAPI(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	files := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if path != root && (name == "internal" || name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "node_modules") {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil && path != root {
				return filepath.SkipDir // another module
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		if f.Name.Name == "main" {
			return nil
		}
		files++
		rel, _ := filepath.Rel(root, path)
		for _, where := range internalInAPI(f) {
			t.Errorf("%s: %s", rel, where)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 50 {
		t.Fatalf("walked %d files; the module has more", files)
	}
}

// internalInAPI lists the exported declarations of f that name a type of an internal/
// package.
func internalInAPI(f *ast.File) []string {
	internal := map[string]bool{} // local names of the internal packages f imports
	for _, imp := range f.Imports {
		path, _ := strconv.Unquote(imp.Path.Value)
		if !strings.Contains("/"+path+"/", "/internal/") {
			continue
		}
		name := path[strings.LastIndex(path, "/")+1:]
		if imp.Name != nil {
			name = imp.Name.Name
		}
		internal[name] = true
	}
	if len(internal) == 0 {
		return nil
	}
	var out []string
	var check func(what string, e ast.Node)
	check = func(what string, e ast.Node) {
		if e == nil || (e == (*ast.FieldList)(nil)) {
			return
		}
		ast.Inspect(e, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncLit, *ast.BlockStmt:
				return false // values, not types
			case *ast.StructType:
				for _, fld := range n.Fields.List {
					if len(fld.Names) == 0 || anyExported(fld.Names) {
						check(what, fld.Type)
					}
				}
				return false
			case *ast.SelectorExpr:
				if x, ok := n.X.(*ast.Ident); ok && internal[x.Name] {
					out = append(out, what+" names "+x.Name+"."+n.Sel.Name)
				}
			}
			return true
		})
	}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if !d.Name.IsExported() || (d.Recv != nil && !exportedRecv(d.Recv)) {
				continue
			}
			check("func "+d.Name.Name, d.Type)
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					if s.Name.IsExported() {
						check("type "+s.Name.Name, s.TypeParams)
						check("type "+s.Name.Name, s.Type)
					}
				case *ast.ValueSpec:
					if anyExported(s.Names) {
						check("var "+s.Names[0].Name, s.Type)
					}
				}
			}
		}
	}
	return out
}

func anyExported(names []*ast.Ident) bool {
	for _, n := range names {
		if n.IsExported() {
			return true
		}
	}
	return false
}

// exportedRecv reports whether a method's receiver is an exported type.
func exportedRecv(r *ast.FieldList) bool {
	t := r.List[0].Type
	for {
		switch x := t.(type) {
		case *ast.StarExpr:
			t = x.X
		case *ast.IndexExpr:
			t = x.X
		case *ast.IndexListExpr:
			t = x.X
		case *ast.Ident:
			return x.IsExported()
		default:
			return false
		}
	}
}
