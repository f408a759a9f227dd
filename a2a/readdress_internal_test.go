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

// TestSameJSONNumbers: arguments are the same call when their numbers have the same value,
// however written, and not when two integers beyond 2^53 differ; key order, spacing and a
// null member against an absent one do not count.
func TestSameJSONNumbers(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want bool
	}{
		{`{"amount":9007199254740993}`, `{"amount":9007199254740992}`, false},
		{`{"amount":9007199254740993}`, `{"amount": 9007199254740993}`, true},
		{`{"amount":1}`, `{"amount":1.0}`, true},
		{`{"amount":1e2}`, `{"amount":100}`, true},
		{`{"amount":1,"note":null}`, `{"amount":1}`, true},
		{`{"amount":1,"to":{"bank":"x","iban":"y"}}`, "{\n  \"to\": {\"iban\": \"y\", \"bank\": \"x\"},\n  \"amount\": 1\n}", true},
		{`{"amount":1,"to":"acme"}`, `{"amount":1,"to":"acme2"}`, false},
		{`{"amount":1}`, `{"amount":1} {}`, false},
	} {
		if got := sameJSON(json.RawMessage(tc.a), json.RawMessage(tc.b)); got != tc.want {
			t.Errorf("sameJSON(%s, %s) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}
