package hitl

import (
	"encoding/json"
	"testing"
)

// TestRPCMethod: the method is found where JSON-RPC clients put it, and refused wherever
// reading it would need more than rpcMethod reads.
func TestRPCMethod(t *testing.T) {
	tests := []struct{ head, want string }{
		{`{"jsonrpc":"2.0","id":1,"method":"message/send","params":{}}`, "message/send"},
		{` { "id" : "a-1" , "jsonrpc" : "2.0" , "method" : "tasks/get" }`, "tasks/get"},
		{`{"method":"GetTask"`, "GetTask"},                                           // cut after the method
		{`{"jsonrpc":"2.0","id":null,"method":"SendMessage","params`, "SendMessage"}, // cut in the params
		{`{"jsonrpc":"2.0","id":-1.5e3,"method":"x"}`, "x"},
		{`{"params":{},"method":"message/send"}`, ""}, // params first
		{`{"jsonrpc":"2.0","id":{"a":1},"method":"message/send"}`, ""},
		{`{"jsonrpc":"2.0","method":"message\/send"}`, ""}, // an escape
		{`{"jsonrpc":"2.0","meth\u006fd":"message/send"}`, ""},
		{`{"model":"m","method":"message/send"}`, ""},
		{`{"jsonrpc":"2.0","method":"message/se`, ""}, // cut in the method
		{`["jsonrpc"]`, ""},
		{``, ""},
		{`{"jsonrpc":"2.0" "method":"message/send"}`, ""},
	}
	for _, tt := range tests {
		if got := rpcMethod([]byte(tt.head)); got != tt.want {
			t.Errorf("rpcMethod(%s) = %q, want %q", tt.head, got, tt.want)
		}
	}
}

// FuzzRPCMethod: any head reads without a panic, and a method found in a complete JSON
// object is the one encoding/json reads there.
func FuzzRPCMethod(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"message/send","params":{}}`,
		`{"id":"x","method":"tasks/get"}`,
		`{"jsonrpc":"2.0","id":1e9,"method":"GetTask","params":{"id":"t"}}`,
		`{"method":"a\"b"}`,
		`{"params":{},"method":"x"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, head []byte) {
		got := rpcMethod(head)
		if got == "" || !json.Valid(head) {
			return
		}
		var call struct {
			Method *string `json:"method"`
		}
		if err := json.Unmarshal(head, &call); err != nil {
			return // valid JSON that is no object: rpcMethod read only a prefix of it
		}
		if call.Method == nil || *call.Method != got {
			t.Errorf("rpcMethod(%s) = %q; encoding/json reads %v", head, got, call.Method)
		}
	})
}
