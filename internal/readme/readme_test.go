// Package readme holds the test that compiles every Go block of the repository's README.md.
package readme

import (
	"bufio"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// stubs stands in for what a README snippet takes from the reader's own program: a context, a
// request body, their key, their mux, their functions.
const stubs = `package snippet

import (
	"context"
	"encoding/json"
	"io"
	"net/http"

	"github.com/hitlkit/hitlkit/hi"
	"github.com/hitlkit/hitlkit/hitl"
	"github.com/hitlkit/hitlkit/hxp"
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
	hxpClient         *hxp.Client
	interaction       *hi.Interaction
	details           json.RawMessage
)

func apply(...any)                                    {}
func record(string, *hitl.Result) error { return nil }
func askMyHuman(context.Context, string) bool { return false }
`

// packages are the import paths a snippet may use, by the name it uses them by.
var packages = map[string]string{
	"context": "context", "fmt": "fmt", "http": "net/http", "os": "os", "time": "time", "slog": "log/slog",
	"json": "encoding/json", "errors": "errors",
	"hitl": "github.com/hitlkit/hitlkit/hitl", "hxp": "github.com/hitlkit/hitlkit/hxp", "a2a": "github.com/hitlkit/hitlkit/a2a",
	"hi": "github.com/hitlkit/hitlkit/hi", "transport": "github.com/hitlkit/hitlkit/transport",
	"hitltest": "github.com/hitlkit/hitlkit/hitl/hitltest",
}

type block struct {
	line int // of the opening fence in README.md
	code string
}

// goBlocks returns the ```go blocks of r.
func goBlocks(r io.Reader) []block {
	var (
		out  []block
		cur  *block
		code strings.Builder
	)
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case cur == nil && strings.TrimSpace(line) == "```go":
			cur = &block{line: n}
			code.Reset()
		case cur != nil && strings.TrimSpace(line) == "```":
			cur.code = code.String()
			out = append(out, *cur)
			cur = nil
		case cur != nil:
			code.WriteString(line + "\n")
		}
	}
	return out
}

var qualified = regexp.MustCompile(`\b([a-z][a-z0-9]*)\.[A-Z]`)

// source wraps a snippet into a file of package snippet: its statements become the body of
// a function returning error, with the imports its qualified names need.
func source(b block) string {
	used := map[string]bool{}
	for _, m := range qualified.FindAllStringSubmatch(b.code, -1) {
		if _, ok := packages[m[1]]; ok {
			used[m[1]] = true
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
	fmt.Fprintf(&f, ")\n\nfunc _() error {\n//line README.md:%d\n%s\treturn nil\n}\n", b.line+1, b.code)
	return f.String()
}

// exportData maps every package the snippets may import, and their dependencies, to its
// compiled export data, through the go command.
func exportData(t *testing.T) map[string]string {
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

// TestREADMECompiles type-checks every Go block of README.md against the module's packages,
// with stubs for the reader's own names. "Declared and not used" is allowed: a snippet shows
// a call, not what the reader does with its result.
func TestREADMECompiles(t *testing.T) {
	f, err := os.Open(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	blocks := goBlocks(f)
	if len(blocks) < 5 {
		t.Fatalf("found %d Go blocks in README.md", len(blocks))
	}
	exports := exportData(t)
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
		file, err := parser.ParseFile(fset, fmt.Sprintf("snippet_%d.go", b.line), source(b), parser.ParseComments)
		if err != nil {
			t.Errorf("README.md:%d: %v", b.line, err)
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
			t.Errorf("README block at line %d does not compile: %s", b.line, p)
		}
	}
}
