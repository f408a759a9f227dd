// Package readme checks the repository's Markdown files and doc comments: every Go block
// type-checks (each module's tests check the blocks that use its packages, in every Markdown
// file of the repository; the root module's tests check the Go code of every doc comment),
// every relative link resolves, every test a document names exists, and every shell command
// shown, in a Markdown file or a doc comment, is one CI runs or one whose packages, tests and
// flags exist.
package readme

import (
	"bufio"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/scanner"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// RootStubs stands in for what a README snippet takes from the reader's own program: a context, a
// request body, their key, their mux, their functions.
const RootStubs = `package snippet

import (
	"context"
	"encoding/json"
	"io"
	"net/http"

	"github.com/hitlkit/hitlkit/hi"
	"github.com/hitlkit/hitlkit/hitl"
	"github.com/hitlkit/hitlkit/hxp"
	"github.com/hitlkit/hitlkit/transport"
)

var (
	ctx               context.Context
	body              io.Reader
	req               *http.Request
	hc                *http.Client
	mux               *http.ServeMux
	apiKey, agentKey  string
	secretFromService []byte
	fwd               hitl.Forwarder
	client            *hitl.Client
	it                *hitl.Interrupt
	hxpClient         *hxp.Client
	interaction       *hi.Interaction
	details           json.RawMessage
)

func apply(...any)                                    {}
func record(string, *transport.Result) error { return nil }
func keep(*hitl.Interrupt)                       {}
func askMyHuman(context.Context, string) bool { return false }
type chatButton struct{}

func (chatButton) Wait(context.Context, *hitl.Interrupt) (*transport.Result, error) { return nil, nil }
`

// RootPackages are the import paths a snippet of the root module may use, by name.
var RootPackages = map[string]string{
	"context": "context", "fmt": "fmt", "http": "net/http", "os": "os", "time": "time", "slog": "log/slog",
	"json": "encoding/json", "errors": "errors",
	"hitl": "github.com/hitlkit/hitlkit/hitl", "hxp": "github.com/hitlkit/hitlkit/hxp", "a2a": "github.com/hitlkit/hitlkit/a2a",
	"hi": "github.com/hitlkit/hitlkit/hi", "transport": "github.com/hitlkit/hitlkit/transport",
	"hitltest":  "github.com/hitlkit/hitlkit/hitl/hitltest",
	"filestore": "github.com/hitlkit/hitlkit/hitl/filestore",
}

// Nested names the packages of the repository's other modules: a block that uses one is
// checked by that module's tests.
var Nested = []string{"hitlmcp.", "hitladk.", "mcp.", "temporal.", "hitlslack.", "slack.", "hitleino.", "hitlgenkit.", "adk.", "genkit."}

// Block is one Go block of a Markdown file.
type Block struct {
	File string // the Markdown file, relative to the repository's root ("README.md" when unknown)
	Line int    // of the opening fence
	Code string
}

// GoBlocks returns the ```go blocks of r.
func GoBlocks(r io.Reader) []Block {
	var (
		out  []Block
		cur  *Block
		code strings.Builder
	)
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case cur == nil && strings.TrimSpace(line) == "```go":
			cur = &Block{Line: n}
			code.Reset()
		case cur != nil && strings.TrimSpace(line) == "```":
			cur.Code = code.String()
			out = append(out, *cur)
			cur = nil
		case cur != nil:
			code.WriteString(line + "\n")
		}
	}
	return out
}

// qualifiers returns the names code qualifies an exported name with ("hitl" of
// hitl.NewClient), read as Go tokens: a name in a comment or a string is not one.
func qualifiers(code string) []string {
	type word struct {
		tok token.Token
		lit string
	}
	var (
		sc   scanner.Scanner
		out  []string
		back [2]word // the two tokens before the current one
	)
	src := []byte(code)
	sc.Init(token.NewFileSet().AddFile("", -1, len(src)), src, nil, 0)
	for {
		_, tok, lit := sc.Scan()
		if tok == token.EOF {
			return out
		}
		if tok == token.IDENT && back[1].tok == token.PERIOD && back[0].tok == token.IDENT && lit[0] >= 'A' && lit[0] <= 'Z' {
			out = append(out, back[0].lit)
		}
		back[0], back[1] = back[1], word{tok, lit}
	}
}

// source wraps a snippet into a file of package snippet: its statements become the body of
// a function returning error, with the imports its qualified names need.
func source(b Block, packages map[string]string) string {
	used := map[string]bool{}
	for _, name := range qualifiers(b.Code) {
		if _, ok := packages[name]; ok {
			used[name] = true
		}
	}
	var names []string
	for n := range used {
		names = append(names, n)
	}
	sort.Strings(names)
	var f strings.Builder
	f.WriteString("package snippet\n\nimport (\n")
	for _, n := range names {
		fmt.Fprintf(&f, "\t%s %q\n", n, packages[n])
	}
	fmt.Fprintf(&f, ")\n\nfunc _() error {\n//line %s:%d\n%s\treturn nil\n}\n", b.name(), b.Line+1, b.Code)
	return f.String()
}

func (b Block) name() string {
	if b.File == "" {
		return "README.md"
	}
	return b.File
}

// UsesNested reports whether a block uses a package of another module.
func UsesNested(code string) bool {
	for _, n := range Nested {
		if strings.Contains(code, n) {
			return true
		}
	}
	return false
}

// exportData maps every package the snippets may import, and their dependencies, to its
// compiled export data, through the go command.
func exportData(t testing.TB, packages map[string]string) map[string]string {
	t.Helper()
	paths := make([]string, 0, len(packages))
	for _, p := range packages {
		paths = append(paths, p)
	}
	args := append([]string{"list", "-export", "-deps", "-json=ImportPath,Export"}, paths...)
	out, err := exec.Command("go", args...).Output()
	if err != nil {
		t.Fatalf("go list -export: %v", err)
	}
	exports := map[string]string{}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for dec.More() {
		var p struct{ ImportPath, Export string }
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		exports[p.ImportPath] = p.Export
	}
	return exports
}

// Check type-checks each block against the packages (by the name a block uses them by),
// with stubs (a file of package snippet) for the reader's own names, and fails t for each
// block that does not compile, naming its file and line. "Declared and not used" is
// allowed: a snippet shows a call, not what the reader does with its result. The export data
// of the packages comes from the go command, run in the current directory's module.
func Check(t testing.TB, blocks []Block, stubs string, packages map[string]string) {
	t.Helper()
	exports := exportData(t, packages)
	fset := token.NewFileSet()
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		e, ok := exports[path]
		if !ok || e == "" {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(e)
	})
	stubFile, err := parser.ParseFile(fset, "stubs.go", stubs, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range blocks {
		file, err := parser.ParseFile(fset, fmt.Sprintf("snippet_%d.go", b.Line), source(b, packages), parser.ParseComments)
		if err != nil {
			t.Errorf("%s:%d: %v", b.name(), b.Line, err)
			continue
		}
		var problems []string
		conf := types.Config{Importer: imp, Error: func(err error) {
			if te, ok := err.(types.Error); ok && strings.Contains(te.Msg, "declared and not used") {
				return
			}
			problems = append(problems, err.Error())
		}}
		_, _ = conf.Check("snippet", fset, []*ast.File{stubFile, file}, nil)
		for _, p := range problems {
			t.Errorf("the Go block at %s:%d does not compile: %s", b.name(), b.Line, p)
		}
	}
}

// CheckFile type-checks the Go blocks of the Markdown file at path for which keep reports true (see
// Check), failing t when there are fewer than atLeast of them.
func CheckFile(t testing.TB, path string, atLeast int, keep func(Block) bool, stubs string, packages map[string]string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var blocks []Block
	for _, b := range GoBlocks(f) {
		if keep(b) {
			blocks = append(blocks, b)
		}
	}
	if len(blocks) < atLeast {
		t.Fatalf("found %d Go blocks to check in %s, want at least %d", len(blocks), path, atLeast)
	}
	Check(t, blocks, stubs, packages)
}

// In keeps the blocks of the Markdown files under dir (a path relative to the repository's
// root, "hitl/hitladk"): a nested module's README.
func In(dir string) func(Block) bool {
	return func(b Block) bool { return strings.HasPrefix(b.File, strings.TrimSuffix(dir, "/")+"/") }
}

// Either keeps the blocks that a or b keeps.
func Either(a, b func(Block) bool) func(Block) bool {
	return func(x Block) bool { return a(x) || b(x) }
}

// NestedDirs returns the directory of every nested module of the repository at root,
// relative to root.
func NestedDirs(t testing.TB, root string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if d.Name() == "go.mod" && filepath.Dir(path) != root {
			rel, err := filepath.Rel(root, filepath.Dir(path))
			if err != nil {
				return err
			}
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// Using keeps the blocks that use name ("hitlmcp.").
func Using(name string) func(Block) bool {
	return func(b Block) bool { return strings.Contains(b.Code, name) }
}

// CheckRepository type-checks the Go blocks of every Markdown file of the repository (see
// [MarkdownFiles]) for which keep reports true (see [Check]), failing t when there are fewer
// than atLeast of them. A module's tests call it with the blocks that use its packages.
func CheckRepository(t testing.TB, atLeast int, keep func(Block) bool, stubs string, packages map[string]string) {
	t.Helper()
	root := Root(t)
	var blocks []Block
	for _, name := range MarkdownFiles(t, root) {
		f, err := os.Open(filepath.Join(root, name))
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range GoBlocks(f) {
			b.File = name
			if keep(b) {
				blocks = append(blocks, b)
			}
		}
		f.Close()
	}
	if len(blocks) < atLeast {
		t.Fatalf("found %d Go blocks to check in the repository's Markdown files, want at least %d", len(blocks), atLeast)
	}
	Check(t, blocks, stubs, packages)
}

// Module is the root module's path: [Root] looks for its go.mod.
const Module = "github.com/hitlkit/hitlkit"

// Root returns the repository's root: the nearest directory at or above the current one
// whose go.mod declares [Module].
func Root(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if raw, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil {
			for _, line := range strings.Split(string(raw), "\n") {
				if f := strings.Fields(line); len(f) == 2 && f[0] == "module" && f[1] == Module {
					return dir
				}
			}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatalf("no directory above the current one holds the go.mod of %s", Module)
		}
		dir = parent
	}
}

// MarkdownFiles returns every Markdown file under root (its path relative to root, with
// forward slashes, sorted), leaving out hidden directories and node_modules (packages npm
// installed, not the repository's own).
func MarkdownFiles(t testing.TB, root string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(d.Name(), ".md") {
			rel, err := filepath.Rel(root, path)
			if err != nil {
				return err
			}
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}
