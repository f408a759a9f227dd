package hitltest

import (
	"go/parser"
	"go/token"
	"reflect"
	"strings"
	"testing"
)

// TestDocListsEveryBodyKey: the package documentation names every key a call's body may
// carry, as the server reads them.
func TestDocListsEveryBodyKey(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "doc.go", nil, parser.ParseComments|parser.PackageClauseOnly)
	if err != nil {
		t.Fatal(err)
	}
	doc := f.Doc.Text()
	rt := reflect.TypeFor[actionRequest]()
	for i := range rt.NumField() {
		key, _, _ := strings.Cut(rt.Field(i).Tag.Get("json"), ",")
		if !strings.Contains(doc, `"`+key+`"`) {
			t.Errorf("the package doc does not list the body key %q", key)
		}
	}
}
