package a2a_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/hitlkit/hitlkit/a2a"
)

// TestNotFoundShapes: every way agents say they do not know a task matches ErrTaskNotFound,
// and nothing else does.
func TestNotFoundShapes(t *testing.T) {
	for name, e := range map[string]*a2a.Error{
		"-32001":                  {Code: -32001, Message: "task not found"},
		"Hector v1.9.9 by name":   {Code: -32602, Message: "Task not found: rpc error: code = NotFound desc = task tasks/t1 not found"},
		"gRPC NotFound, internal": {Code: -32603, Message: "rpc error: code = NotFound desc = no such task"},
		"in data.error":           {Code: -32602, Message: "invalid params", Data: json.RawMessage(`{"error":"task not found: t1"}`)},
		"REST reason":             {Code: -32001, Reason: "TASK_NOT_FOUND", HTTPStatus: 404},
		"not: invalid params":     {Code: -32602, Message: "invalid params", Data: json.RawMessage(`{"error":"contextId mismatch"}`)},
		"not: method not found":   {Code: -32601, Message: "method not found"},
		"not: file not found":     {Code: -32603, Message: "file not found"},
	} {
		want := name[:4] != "not:"
		if got := errors.Is(e, a2a.ErrTaskNotFound); got != want {
			t.Errorf("%s: Is(ErrTaskNotFound) = %v, want %v", name, got, want)
		}
	}
}
