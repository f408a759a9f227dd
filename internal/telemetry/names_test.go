package telemetry

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"strconv"
	"strings"
	"testing"
)

// Every span, event, attribute and metric name is in the table of transport's documentation.
func TestNamesDocumented(t *testing.T) {
	doc, err := os.ReadFile("../../transport/doc.go")
	if err != nil {
		t.Fatal(err)
	}
	f, err := parser.ParseFile(token.NewFileSet(), "telemetry.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	ast.Inspect(f, func(node ast.Node) bool {
		vs, ok := node.(*ast.ValueSpec)
		if !ok || len(vs.Values) != 1 {
			return true
		}
		name := vs.Names[0].Name
		lit, ok := vs.Values[0].(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING || !(strings.HasPrefix(name, "Attr") || strings.HasPrefix(name, "Metric") ||
			strings.HasPrefix(name, "Event") || strings.HasPrefix(name, "Span") || strings.HasPrefix(name, "Poll")) {
			return true
		}
		v, _ := strconv.Unquote(lit.Value)
		n++
		if !strings.Contains(string(doc), v) {
			t.Errorf("%s = %q is not in transport/doc.go's Telemetry section", name, v)
		}
		return true
	})
	if n < 20 {
		t.Fatalf("found %d names; the test no longer reads the constants", n)
	}
}
