package a2a

import (
	"encoding/json"
	"testing"
)

// TestReaddressedKeepsNumbers: re-addressing an answer replaces the confirmation id and
// leaves every other value as it was, an integer above 2^53 included.
func TestReaddressedKeepsNumbers(t *testing.T) {
	a := Answer{Action: "approve", Parts: []Part{{Data: json.RawMessage(`{"id":"confirm-1","amount":9007199254740993,"rate":0.1}`)}}}
	got := readdressed(a, "confirm-1", "confirm-2")
	if want := `{"amount":9007199254740993,"id":"confirm-2","rate":0.1}`; string(got.Parts[0].Data) != want {
		t.Errorf("re-addressed data %s, want %s", got.Parts[0].Data, want)
	}
}
