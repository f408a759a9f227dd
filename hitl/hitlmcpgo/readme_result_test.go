package hitlmcpgo_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hitlkit/hitlkit/internal/readme"
)

// TestREADMEResultOnANo runs the Result callback of the README's first program, the code a
// reader copies, as Tool calls it: with the person's Result and no response (a rejection, an
// expiry with default_action approve, a cancellation, an approval), and with the backend's
// response and no Result (a 500 that asked no one, a 200 that needed no person). It must
// not panic — mcp-go's stdio server recovers a tool handler's panic and answers the call with
// a JSON-RPC internal error, so the model would read "internal panic" for every "no" — and
// only an approval or a service that needed no person may say "deleted".
func TestREADMEResultOnANo(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command")
	}
	f, err := os.Open("README.md")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var src string
	for _, b := range readme.GoBlocks(f) {
		if strings.HasPrefix(b.Code, "package main\n") {
			src = b.Code
			break
		}
	}
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, "README.md", src, 0)
	if err != nil {
		t.Fatalf("the README's first program: %v", err)
	}
	var result ast.Expr
	ast.Inspect(file, func(n ast.Node) bool {
		if kv, ok := n.(*ast.KeyValueExpr); ok {
			if id, ok := kv.Key.(*ast.Ident); ok && id.Name == "Result" {
				result = kv.Value
			}
		}
		return result == nil
	})
	if result == nil {
		t.Fatal("the README's first program sets no Tool.Result")
	}
	program := `package main

import (
	"context"
	"fmt"
	"net/http"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/hitlkit/hitlkit/transport"
)

func main() {
	result := ` + src[fset.Position(result.Pos()).Offset:fset.Position(result.End()).Offset] + `
	for _, c := range []struct {
		resp *http.Response
		r    *transport.Result
	}{
		{nil, &transport.Result{Status: transport.StatusCompleted, Action: "reject", Decision: transport.DecisionReject}},
		{nil, &transport.Result{Status: transport.StatusExpired, DefaultApplied: true, DefaultAction: "approve"}},
		{nil, &transport.Result{Status: transport.StatusCancelled}},
		{&http.Response{StatusCode: 500, Status: "500 Internal Server Error"}, nil},
		{nil, &transport.Result{Status: transport.StatusCompleted, Action: "approve", Decision: transport.DecisionApprove}},
		{&http.Response{StatusCode: 200, Status: "200 OK"}, nil},
	} {
		res, err := result(context.Background(), c.resp, c.r)
		fmt.Println(res.IsError, err)
	}
}
`
	// A module of its own beside this one's requirements, with this checkout for hitlkit.
	here, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	mod, err := os.ReadFile("go.mod")
	if err != nil {
		t.Fatal(err)
	}
	sum, err := os.ReadFile("go.sum")
	if err != nil {
		t.Fatal(err)
	}
	gomod := strings.Replace(string(mod), "module github.com/hitlkit/hitlkit/hitl/hitlmcpgo", "module example.com/readmeresult", 1)
	gomod = strings.ReplaceAll(gomod, "=> ../", "=> "+filepath.Dir(here)+"/")
	dir := t.TempDir()
	for name, content := range map[string]string{"go.mod": gomod, "go.sum": string(sum), "main.go": program} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.CommandContext(t.Context(), "go", "run", ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off")
	out, err := cmd.CombinedOutput()
	want := "true <nil>\ntrue <nil>\ntrue <nil>\ntrue <nil>\nfalse <nil>\nfalse <nil>\n"
	if err != nil || string(out) != want {
		t.Errorf("the README's Result on a rejection, an expiry, a cancellation, a 500, an approval and a 200:\n%s(%v)\nwant isError:\n%s", out, err, want)
	}
}
