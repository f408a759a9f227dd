package jsonname

import (
	"encoding/json"
	"testing"
)

// TestFoldIsTheDecoders: names Fold calls one fill one field when encoding/json decodes them,
// and names it tells apart do not.
func TestFoldIsTheDecoders(t *testing.T) {
	for _, name := range []string{"Ref", "REF", "rEf", "$defs", "$defſ", "\u212aey", "key", "straße", "STRASSE", "ǅ", "ǆ"} {
		var v struct {
			Field string `json:"$defs"`
			Ref   string `json:"ref"`
			Key   string `json:"key"`
			Sz    string `json:"straße"`
			Dz    string `json:"ǆ"`
		}
		b, _ := json.Marshal(map[string]string{name: "x"})
		if err := json.Unmarshal(b, &v); err != nil {
			t.Fatal(err)
		}
		filled := map[string]bool{"$defs": v.Field == "x", "ref": v.Ref == "x", "key": v.Key == "x", "straße": v.Sz == "x", "ǆ": v.Dz == "x"}
		for field, got := range filled {
			if want := Fold(name) == Fold(field); got != want {
				t.Errorf("%q into field %q: filled %v, Fold says %v", name, field, got, want)
			}
		}
	}
}
