package readme

import (
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"strconv"
	"strings"
	"testing"
)

// CheckPrograms type-checks the blocks of the README at path that are whole programs (they
// start with "package main"), failing t for each that does not compile and when there are
// fewer than atLeast of them. Unlike [Check], such a block is checked as it stands, imports
// and all, beside stubs (a file of package main, or "") for the functions the README says
// are the reader's own. The export data of the imports comes from the go command, run in the
// current directory's module.
func CheckPrograms(t testing.TB, path string, atLeast int, stubs string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fset := token.NewFileSet()
	var files []*ast.File
	var stubFile *ast.File
	var lines []int
	paths := map[string]string{}
	for _, b := range GoBlocks(f) {
		if !strings.HasPrefix(b.Code, "package main\n") {
			continue
		}
		// Blank lines before the code put it at its lines of the README, for the errors.
		file, err := parser.ParseFile(fset, path, strings.Repeat("\n", b.Line)+b.Code, parser.ParseComments)
		if err != nil {
			t.Errorf("the program at line %d does not parse: %v", b.Line, err)
			continue
		}
		files, lines = append(files, file), append(lines, b.Line)
		for _, imp := range file.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			paths[p] = p
		}
	}
	if stubs != "" {
		file, err := parser.ParseFile(fset, "stubs.go", stubs, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range file.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			paths[p] = p
		}
		stubFile = file
	}
	if len(files) < atLeast {
		t.Fatalf("found %d whole programs in %s, want at least %d", len(files), path, atLeast)
	}
	exports := exportData(t, paths)
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		e, ok := exports[path]
		if !ok || e == "" {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(e)
	})
	for i, file := range files {
		conf := types.Config{Importer: imp, Error: func(err error) {
			t.Errorf("the program at line %d does not compile: %v", lines[i], err)
		}}
		check := []*ast.File{file}
		if stubFile != nil {
			check = append(check, stubFile)
		}
		_, _ = conf.Check("main", fset, check, nil)
	}
}

// CheckFirstProgramShort fails t unless the README at path has a program (a Go block that
// starts with "package main") and the first one, the whole block, has fewer than under lines.
func CheckFirstProgramShort(t testing.TB, path string, under int) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, b := range GoBlocks(f) {
		if strings.HasPrefix(b.Code, "package main\n") {
			if n := strings.Count(strings.TrimSpace(b.Code), "\n") + 1; n >= under {
				t.Errorf("%s:%d: the first program has %d lines, want under %d", path, b.Line, n, under)
			}
			return
		}
	}
	t.Fatalf("%s has no program", path)
}
