package a2a_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hitlkit/hitlkit/a2a"
	"github.com/hitlkit/hitlkit/transport"
)

// Fixtures in each wire family, shaped as notes §2 and the a2a-go v2.4.0 run describe.
const (
	task03Input = `{"jsonrpc":"2.0","id":1,"result":{"kind":"task","id":"t1","contextId":"c1",
		"status":{"state":"input-required","message":{"kind":"message","role":"agent","messageId":"m1",
		"parts":[{"kind":"text","text":"Approve delete_file?"},{"kind":"data","data":{"options":["approve","deny"]}}]},
		"timestamp":"2026-11-22T10:00:00Z"},"history":[]}}`
	task10RPCInput = `{"jsonrpc":"2.0","id":1,"result":{"task":{"id":"t1","contextId":"c1","status":{"state":"TASK_STATE_INPUT_REQUIRED",
		"message":{"messageId":"m1","role":"ROLE_AGENT","parts":[{"text":"Approve delete_file?"},{"data":{"options":["approve","deny"]}}]}}}}}`
	task10Bare = `{"id":"t1","contextId":"c1","status":{"state":"TASK_STATE_INPUT_REQUIRED",
		"message":{"messageId":"m1","role":"ROLE_AGENT","parts":[{"text":"Approve delete_file?"},{"data":{"options":["approve","deny"]}}]}}}`
	task03REST = `{"task":{"id":"t1","contextId":"c1","status":{"state":"TASK_STATE_INPUT_REQUIRED",
		"message":{"messageId":"m1","role":"ROLE_AGENT","content":[{"text":"Approve delete_file?"},{"data":{"data":{"options":["approve","deny"]}}}]}}}}`
)

// wantQuestion is what every input-required fixture above asks.
var wantQuestion = &a2a.Message{MessageID: "m1", Role: a2a.RoleAgent, Parts: []a2a.Part{
	{Text: "Approve delete_file?"}, {Data: json.RawMessage(`{"options":["approve","deny"]}`)}}}

// TestCasesDetection is notes/a2a.md §8 cases 1–11, 24–28 and 33–37: one named row per
// body, the class it must get, and for pauses what the pause must hold.
func TestCasesDetection(t *testing.T) {
	tests := []struct {
		name      string
		body      string
		want      a2a.Class
		question  *a2a.Message // checked when set
		contextID string       // checked for pauses
		relay     *a2a.Relay   // checked when set
	}{
		{"case01 0.3 JSON-RPC task input-required", task03Input, a2a.ClassInputRequired, wantQuestion, "c1", nil},
		{"case02 1.0 JSON-RPC SendMessage {task} input-required", task10RPCInput, a2a.ClassInputRequired, wantQuestion, "c1", nil},
		{"case03 1.0 JSON-RPC GetTask bare task", `{"jsonrpc":"2.0","id":7,"result":` + task10Bare + `}`, a2a.ClassInputRequired, wantQuestion, "c1", nil},
		{"case04 1.0 REST {task}", `{"task":` + task10Bare + `}`, a2a.ClassInputRequired, wantQuestion, "c1", nil},
		{"case04 1.0 REST GET bare task", task10Bare, a2a.ClassInputRequired, wantQuestion, "c1", nil},
		{"case05 0.3 REST content and nested data", task03REST, a2a.ClassInputRequired, wantQuestion, "c1", nil},
		{"case06 0.3 message reply", `{"jsonrpc":"2.0","id":1,"result":{"kind":"message","role":"agent","messageId":"m9","parts":[{"kind":"text","text":"hello"}]}}`, a2a.ClassMessage, nil, "", nil},
		{"case06 1.0 message reply", `{"message":{"messageId":"m9","role":"ROLE_AGENT","parts":[{"text":"hello"}]}}`, a2a.ClassMessage, nil, "", nil},
		{"case07 auth-required", `{"id":"t1","contextId":"c1","status":{"state":"auth-required"}}`, a2a.ClassAuthRequired, nil, "c1", nil},
		{"case07 TASK_STATE_AUTH_REQUIRED", `{"id":"t1","contextId":"c1","status":{"state":"TASK_STATE_AUTH_REQUIRED"}}`, a2a.ClassAuthRequired, nil, "c1", nil},
		{"case09 submitted", `{"id":"t1","status":{"state":"submitted"}}`, a2a.ClassWorking, nil, "", nil},
		{"case09 TASK_STATE_WORKING", `{"id":"t1","status":{"state":"TASK_STATE_WORKING"}}`, a2a.ClassWorking, nil, "", nil},
		{"case10 unknown", `{"id":"t1","status":{"state":"unknown"}}`, a2a.ClassUnknown, nil, "", nil},
		{"case10 TASK_STATE_UNSPECIFIED", `{"id":"t1","status":{"state":"TASK_STATE_UNSPECIFIED"}}`, a2a.ClassUnknown, nil, "", nil},
		{"case10 empty state", `{"id":"t1","status":{"state":""}}`, a2a.ClassUnknown, nil, "", nil},
		{"case10 missing status", `{"kind":"task","id":"t1"}`, a2a.ClassUnknown, nil, "", nil},
		{"case10 TASK_STATE_RUNNING", `{"id":"t1","status":{"state":"TASK_STATE_RUNNING"}}`, a2a.ClassUnknown, nil, "", nil},
		{"case10 paused", `{"id":"t1","status":{"state":"paused"}}`, a2a.ClassUnknown, nil, "", nil},
		{"case11 Input-Required", `{"id":"t1","contextId":"c1","status":{"state":"Input-Required"}}`, a2a.ClassInputRequired, nil, "c1", nil},
		{"case11 task_state_input_required", `{"id":"t1","contextId":"c1","status":{"state":" task_state_input_required "}}`, a2a.ClassInputRequired, nil, "c1", nil},
		{"case24 working + relay_task", `{"jsonrpc":"2.0","id":1,"result":{"id":"r1","kind":"task","status":{"state":"working"},"metadata":{"relay_task":true}}}`, a2a.ClassRelay, nil, "", &a2a.Relay{}},
		{"case25 completed + hitl_pending", `{"jsonrpc":"2.0","id":1,"result":{"id":"r1","contextId":"rc","kind":"task","status":{"state":"completed"},
			"metadata":{"hitl_pending":{"hitl_request_id":"h1","task_id":"s1","context_id":"sc","sink_agent_id":"sink-agent","detection_source":"AGENT_INPUT_REQUIRED"}}}}`,
			a2a.ClassRelayPending, nil, "rc", &a2a.Relay{HITLRequestID: "h1", TaskID: "s1", ContextID: "sc", SinkAgentID: "sink-agent", DetectionSource: "AGENT_INPUT_REQUIRED"}},
		{"case26 hitl_pending from another sink agent", `{"id":"r1","status":{"state":"completed"},"metadata":{"hitl_pending":{"sink_agent_id":"agent-b","task_id":"s9"}}}`,
			a2a.ClassRelayPending, nil, "", &a2a.Relay{SinkAgentID: "agent-b", TaskID: "s9"}},
		{"case27 working + relay_reason", `{"id":"r1","status":{"state":"working"},"metadata":{"relay_reason":{"policy":"pii"}}}`, a2a.ClassRelay, nil, "", &a2a.Relay{Reason: json.RawMessage(`{"policy":"pii"}`)}},
		{"case28 relay_task \"true\" (lenient)", `{"id":"r1","status":{"state":"working"},"metadata":{"relay_task":"TRUE"}}`, a2a.ClassRelay, nil, "", &a2a.Relay{}},
		{"case28 relay_task false", `{"id":"r1","status":{"state":"working"},"metadata":{"relay_task":false}}`, a2a.ClassWorking, nil, "", nil},
		{"case28 relay_task \"false\"", `{"id":"r1","status":{"state":"working"},"metadata":{"relay_task":"false"}}`, a2a.ClassWorking, nil, "", nil},
		{"case28 no metadata", `{"id":"r1","status":{"state":"working"}}`, a2a.ClassWorking, nil, "", nil},
		{"case28 hitl_pending null", `{"id":"r1","status":{"state":"completed"},"metadata":{"hitl_pending":null}}`, a2a.ClassDone, nil, "", nil},
		{"case33 Hector v1 TASK_STATE_CANCELLED in lowercase JSON", `{"jsonrpc":"2.0","id":1,"result":{"kind":"task","id":"t1","contextId":"c1","status":{"state":"TASK_STATE_CANCELLED"}}}`, a2a.ClassDone, nil, "", nil},
		{"case34 Hector v2 input_required metadata", `{"jsonrpc":"2.0","id":1,"result":{"kind":"task","id":"t1","contextId":"c1","status":{"state":"input-required"},
			"metadata":{"input_required":true,"long_running_tool_ids":["call-7"],"input_prompt":"Approve?"}}}`, a2a.ClassInputRequired, nil, "c1", nil},
		{"case36 no contextId", `{"id":"t1","status":{"state":"TASK_STATE_INPUT_REQUIRED","message":{"messageId":"m1","role":"ROLE_AGENT","parts":[{"text":"Approve delete_file?"},{"data":{"options":["approve","deny"]}}]}}}`,
			a2a.ClassInputRequired, wantQuestion, "", nil},
		{"case37 question after the reply in history", `{"id":"t1","contextId":"c1","status":{"state":"TASK_STATE_INPUT_REQUIRED","message":{"messageId":"m1","role":"ROLE_AGENT","parts":[{"text":"Approve delete_file?"},{"data":{"options":["approve","deny"]}}]}},
			"history":[{"messageId":"u1","role":"ROLE_USER","parts":[{"text":"approve"}]},{"messageId":"m0","role":"ROLE_AGENT","parts":[{"text":"an older question"}]}]}`,
			a2a.ClassInputRequired, wantQuestion, "c1", nil},
	}
	for _, state := range []string{"completed", "failed", "canceled", "rejected", "cancelled", "TASK_STATE_COMPLETED", "TASK_STATE_FAILED", "TASK_STATE_CANCELED", "TASK_STATE_CANCELLED", "TASK_STATE_REJECTED"} {
		tests = append(tests, struct {
			name      string
			body      string
			want      a2a.Class
			question  *a2a.Message
			contextID string
			relay     *a2a.Relay
		}{"case08 terminal " + state, `{"id":"t1","status":{"state":"` + state + `"}}`, a2a.ClassDone, nil, "", nil})
	}
	ep := a2a.Endpoint{URL: "https://agent.example/rpc", Binding: a2a.JSONRPC10}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ev, err := a2a.Decode([]byte(tt.body))
			if err != nil {
				t.Fatalf("Decode: %v", err)
			}
			if got := ev.Class(); got != tt.want {
				t.Fatalf("class = %s, want %s", got, tt.want)
			}
			p := a2a.NewPause(ep, ev.Task)
			if p == nil {
				if tt.want.Paused() {
					t.Fatal("NewPause = nil for a paused task")
				}
				return
			}
			if !tt.want.Paused() {
				t.Fatalf("NewPause = %v for class %s", p, tt.want)
			}
			if p.ContextID != tt.contextID || p.Endpoint != ep || p.TaskID != ev.Task.ID {
				t.Errorf("pause ids = %q %q %v", p.TaskID, p.ContextID, p.Endpoint)
			}
			if tt.question != nil {
				if diff := cmp.Diff(tt.question, p.Question); diff != "" {
					t.Errorf("question (-want +got):\n%s", diff)
				}
			}
			if tt.relay != nil {
				if diff := cmp.Diff(tt.relay, p.Relay); diff != "" {
					t.Errorf("relay (-want +got):\n%s", diff)
				}
			}
		})
	}
}

// TestCase08TerminalRefusedLocally: a finished task has no pause, and a resume of one is
// refused before any request.
func TestCase08TerminalRefusedLocally(t *testing.T) {
	c := newClient(t, transport.WithHTTPClient(failingClient(t)))
	done := &a2a.Pause{Class: a2a.ClassDone, TaskID: "t1", Endpoint: a2a.Endpoint{URL: "https://agent.example/rpc", Binding: a2a.JSONRPC10}}
	if _, err := c.Resume(t.Context(), done, a2a.HectorDecision(true)); !errors.Is(err, a2a.ErrNotPaused) {
		t.Errorf("Resume(done) = %v", err)
	}
	relay := &a2a.Pause{Class: a2a.ClassRelay, TaskID: "t1", Endpoint: done.Endpoint}
	if _, err := c.Resume(t.Context(), relay, a2a.HectorDecision(true)); !errors.Is(err, a2a.ErrNotPaused) {
		t.Errorf("Resume(relay hold) = %v", err)
	}
	input := &a2a.Pause{Class: a2a.ClassInputRequired, TaskID: "t1", Endpoint: done.Endpoint}
	if _, err := c.Resume(t.Context(), input, a2a.Answer{}); !errors.Is(err, a2a.ErrNoAnswer) {
		t.Errorf("Resume(no parts) = %v", err)
	}
}

// TestCasesStreams is cases 12–18: streams in every framing end their turn where they should
// and Classify as their last state.
func TestCasesStreams(t *testing.T) {
	const (
		sse03 = "data: {\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"kind\":\"task\",\"id\":\"t1\",\"contextId\":\"c1\",\"status\":{\"state\":\"submitted\"}}}\n\n" +
			"data: {\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"kind\":\"status-update\",\"taskId\":\"t1\",\"contextId\":\"c1\",\"status\":{\"state\":\"working\"},\"final\":false}}\n\n" +
			"data: {\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"kind\":\"status-update\",\"taskId\":\"t1\",\"contextId\":\"c1\",\"status\":{\"state\":\"input-required\",\"message\":{\"kind\":\"message\",\"role\":\"agent\",\"messageId\":\"m1\",\"parts\":[{\"kind\":\"text\",\"text\":\"Approve delete_file?\"},{\"kind\":\"data\",\"data\":{\"options\":[\"approve\",\"deny\"]}}]}},\"final\":true}}\n\n" +
			"data: {\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"kind\":\"status-update\",\"taskId\":\"t1\",\"contextId\":\"c1\",\"status\":{\"state\":\"completed\"},\"final\":true}}\n\n"
		sse10 = "data: {\"task\":{\"id\":\"t1\",\"contextId\":\"c1\",\"status\":{\"state\":\"TASK_STATE_SUBMITTED\"}}}\n\n" +
			"data: {\"statusUpdate\":{\"taskId\":\"t1\",\"contextId\":\"c1\",\"status\":{\"state\":\"TASK_STATE_WORKING\"}}}\n\n" +
			"data: {\"statusUpdate\":{\"taskId\":\"t1\",\"contextId\":\"c1\",\"status\":{\"state\":\"TASK_STATE_INPUT_REQUIRED\",\"message\":{\"messageId\":\"m1\",\"role\":\"ROLE_AGENT\",\"parts\":[{\"text\":\"Approve delete_file?\"},{\"data\":{\"options\":[\"approve\",\"deny\"]}}]}},\"metadata\":{\"tool\":\"delete_file\"}}}\n\n"
		sse03REST = "data: {\"task\":{\"id\":\"t1\",\"contextId\":\"c1\",\"status\":{\"state\":\"TASK_STATE_SUBMITTED\"}}}\n\n" +
			"data: {\"statusUpdate\":{\"taskId\":\"t1\",\"contextId\":\"c1\",\"status\":{\"state\":\"TASK_STATE_INPUT_REQUIRED\",\"message\":{\"messageId\":\"m1\",\"role\":\"ROLE_AGENT\",\"content\":[{\"text\":\"Approve delete_file?\"},{\"data\":{\"data\":{\"options\":[\"approve\",\"deny\"]}}}]}}}}\n\n"
		sseWorkingEOF = "data: {\"task\":{\"id\":\"t1\",\"contextId\":\"c1\",\"status\":{\"state\":\"TASK_STATE_SUBMITTED\"}}}\n\n" +
			"data: {\"statusUpdate\":{\"taskId\":\"t1\",\"contextId\":\"c1\",\"status\":{\"state\":\"TASK_STATE_WORKING\"}}}\n\n"
		sseRPCError  = "data: {\"jsonrpc\":\"2.0\",\"id\":4,\"error\":{\"code\":-32001,\"message\":\"task not found\"}}\n\n"
		sseRESTError = "data: {\"error\":{\"code\":404,\"status\":\"NOT_FOUND\",\"message\":\"task not found\",\"details\":[{\"@type\":\"type.googleapis.com/google.rpc.ErrorInfo\",\"reason\":\"TASK_NOT_FOUND\",\"domain\":\"a2a-protocol.org\"}]}}\n\n"
		// The same as sse10, framed with ids, event names, comments, CRLF and data split over lines.
		sseFramed = ": keep-alive\r\nid: 1\r\nevent: message\r\ndata: {\"task\":{\"id\":\"t1\",\"contextId\":\"c1\",\r\ndata: \"status\":{\"state\":\"TASK_STATE_SUBMITTED\"}}}\r\n\r\n" +
			"id: 2\nevent: message\ndata: {\"statusUpdate\":{\"taskId\":\"t1\",\"contextId\":\"c1\",\"status\":{\"state\":\"TASK_STATE_WORKING\"}}}\n\n: keep-alive\n\n" +
			"id: 3\ndata: {\"statusUpdate\":{\"taskId\":\"t1\",\"contextId\":\"c1\",\n" +
			"data: \"status\":{\"state\":\"TASK_STATE_INPUT_REQUIRED\",\"message\":{\"messageId\":\"m1\",\"role\":\"ROLE_AGENT\",\"parts\":[{\"text\":\"Approve delete_file?\"},{\"data\":{\"options\":[\"approve\",\"deny\"]}}]}},\"metadata\":{\"tool\":\"delete_file\"}}}\n\n"
		sseArtifacts = "data: {\"task\":{\"id\":\"t1\",\"contextId\":\"c1\",\"status\":{\"state\":\"TASK_STATE_WORKING\"}}}\n\n" +
			"data: {\"artifactUpdate\":{\"taskId\":\"t1\",\"contextId\":\"c1\",\"artifact\":{\"artifactId\":\"a1\",\"parts\":[{\"text\":\"part one\"}]},\"append\":false,\"lastChunk\":false}}\n\n" +
			"data: {\"artifactUpdate\":{\"taskId\":\"t1\",\"contextId\":\"c1\",\"artifact\":{\"artifactId\":\"a1\",\"parts\":[{\"text\":\" part two\"}]},\"append\":true,\"lastChunk\":true}}\n\n" +
			"data: {\"statusUpdate\":{\"taskId\":\"t1\",\"contextId\":\"c1\",\"status\":{\"state\":\"TASK_STATE_INPUT_REQUIRED\",\"message\":{\"messageId\":\"m1\",\"role\":\"ROLE_AGENT\",\"parts\":[{\"text\":\"Approve delete_file?\"},{\"data\":{\"options\":[\"approve\",\"deny\"]}}]}}}}\n\n"
	)
	tests := []struct {
		name      string
		stream    string
		want      a2a.State
		question  bool
		artifacts int
		err       error
	}{
		{"case12 0.3 JSON-RPC stream ends at final", sse03, a2a.StateInputRequired, true, 0, nil},
		{"case13 1.0 stream without final ends at EOF", sse10, a2a.StateInputRequired, true, 0, nil},
		{"case14 0.3 REST stream without final", sse03REST, a2a.StateInputRequired, true, 0, nil},
		{"case15 EOF after working", sseWorkingEOF, a2a.StateWorking, false, 0, nil},
		{"case16 JSON-RPC error in the stream", sseRPCError, "", false, 0, a2a.ErrTaskNotFound},
		{"case16 REST error in the stream", sseRESTError, "", false, 0, a2a.ErrTaskNotFound},
		{"case17 ids, event names, comments, CRLF, multi-line data", sseFramed, a2a.StateInputRequired, true, 0, nil},
		{"case18 artifact updates interleaved", sseArtifacts, a2a.StateInputRequired, true, 2, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ev, err := a2a.ReadStream(strings.NewReader(tt.stream))
			if tt.err != nil {
				var ae *a2a.Error
				if !errors.Is(err, tt.err) || !errors.As(err, &ae) {
					t.Fatalf("err = %v, want %v", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if ev.Task == nil || ev.Task.State != tt.want || ev.Task.ID != "t1" || ev.Task.ContextID != "c1" {
				t.Fatalf("task = %+v", ev.Task)
			}
			if tt.question {
				if diff := cmp.Diff(wantQuestion, ev.Task.Question, cmp.FilterPath(func(p cmp.Path) bool { return p.Last().String() == ".Metadata" }, cmp.Ignore())); diff != "" {
					t.Errorf("question (-want +got):\n%s", diff)
				}
			}
			if len(ev.Task.Artifacts) != tt.artifacts {
				t.Errorf("artifacts = %d, want %d", len(ev.Task.Artifacts), tt.artifacts)
			}
		})
	}
	// Metadata of a status update reaches the task, as agents merge it.
	ev, err := a2a.ReadStream(strings.NewReader(sseFramed))
	if err != nil || string(ev.Task.Metadata) != `{"tool":"delete_file"}` {
		t.Errorf("metadata = %s, %v", ev.Task.Metadata, err)
	}
}

// TestCase29Malformed: every malformed JSON-RPC body is its own typed error, never a pause.
func TestCase29Malformed(t *testing.T) {
	tests := []struct {
		name string
		body string
		want error
	}{
		{"both result and error", `{"jsonrpc":"2.0","id":1,"result":{"id":"t1","status":{"state":"input-required"}},"error":{"code":-32603,"message":"x"}}`, a2a.ErrResultAndError},
		{"neither result nor error", `{"jsonrpc":"2.0","id":1}`, a2a.ErrNoResult},
		{"jsonrpc 1.0", `{"jsonrpc":"1.0","id":1,"result":{"id":"t1","status":{"state":"input-required"}}}`, a2a.ErrNotJSONRPC},
		{"jsonrpc missing", `{"id":1,"result":{"id":"t1","status":{"state":"input-required"}}}`, a2a.ErrNotJSONRPC},
		{"error code not a number", `{"jsonrpc":"2.0","id":1,"error":{"code":"-32001","message":"x"}}`, a2a.ErrBadErrorObject},
		{"error not an object", `{"jsonrpc":"2.0","id":1,"error":"boom"}`, a2a.ErrBadErrorObject},
		{"body not JSON", `not json at all`, a2a.ErrNotJSON},
		{"HTML 502 page", `<html><body><h1>502 Bad Gateway</h1></body></html>`, a2a.ErrNotJSON},
		{"cut-off JSON", `{"jsonrpc":"2.0","id":1,"result":{"id":"t`, a2a.ErrNotJSON},
		{"result not an object", `{"jsonrpc":"2.0","id":1,"result":"input-required"}`, a2a.ErrUnrecognised},
		{"result of unknown kind", `{"jsonrpc":"2.0","id":1,"result":{"kind":"pause","id":"t1"}}`, a2a.ErrUnrecognised},
		{"JSON array", `[{"id":"t1"}]`, a2a.ErrUnrecognised},
		{"task without id", `{"task":{"status":{"state":"TASK_STATE_INPUT_REQUIRED"}}}`, a2a.ErrUnrecognised},
		{"task with a status of the wrong type", `{"id":"t1","status":"input-required"}`, a2a.ErrUnrecognised},
	}
	distinct := map[error]bool{}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ev, err := a2a.Decode([]byte(tt.body))
			var me *a2a.MalformedError
			if ev != nil || !errors.Is(err, tt.want) || !errors.Is(err, a2a.ErrMalformed) || !errors.As(err, &me) {
				t.Fatalf("Decode = %+v, %v; want %v", ev, err, tt.want)
			}
			for other := range distinct {
				if other != tt.want && errors.Is(err, other) {
					t.Errorf("%v also matches %v", err, other)
				}
			}
			distinct[tt.want] = true
		})
	}
	// error.data may be any JSON value: each is an agent error, not a malformed body.
	for _, data := range []string{`[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"TASK_NOT_FOUND","domain":"a2a-protocol.org"}]`, `{"taskId":"t1"}`, `"no such task"`} {
		_, err := a2a.Decode([]byte(`{"jsonrpc":"2.0","id":1,"error":{"code":-32001,"message":"task not found","data":` + data + `}}`))
		var ae *a2a.Error
		if !errors.As(err, &ae) || !errors.Is(err, a2a.ErrTaskNotFound) || errors.Is(err, a2a.ErrMalformed) || string(ae.Data) != data {
			t.Errorf("data %s: %v", data, err)
		}
	}
}

// TestCase30ErrorCodes: each code is its sentinel; an unknown code is only ErrRemote; the
// two ways of refusing an ended task are ErrTaskTerminal (case 21), a context mismatch is not
// (case 22).
func TestCase30ErrorCodes(t *testing.T) {
	tests := []struct {
		code int
		msg  string
		want error
	}{
		{-32700, "", a2a.ErrParse}, {-32600, "", a2a.ErrInvalidRequest}, {-32601, "", a2a.ErrMethodNotFound},
		{-32602, "", a2a.ErrInvalidParams}, {-32603, "", a2a.ErrInternal}, {-32000, "", a2a.ErrServer},
		{-32001, "", a2a.ErrTaskNotFound}, {-32002, "", a2a.ErrTaskNotCancelable}, {-32003, "", a2a.ErrPushNotSupported},
		{-32004, "", a2a.ErrUnsupportedOperation}, {-32005, "", a2a.ErrContentTypeNotSupported},
		{-32006, "", a2a.ErrInvalidAgentResponse}, {-32007, "", a2a.ErrExtendedCardNotConfigured},
		{-32008, "", a2a.ErrExtensionSupportRequired}, {-32009, "", a2a.ErrVersionNotSupported},
		{-31401, "", a2a.ErrUnauthenticated}, {-31403, "", a2a.ErrPermissionDenied},
		{-32004, "task is completed", a2a.ErrTaskTerminal},
		{-32602, "task in a terminal state", a2a.ErrTaskTerminal},
	}
	for _, tt := range tests {
		body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "error": map[string]any{"code": tt.code, "message": tt.msg}})
		_, err := a2a.Decode(body)
		if !errors.Is(err, tt.want) || !errors.Is(err, a2a.ErrRemote) {
			t.Errorf("code %d %q: %v does not match %v", tt.code, tt.msg, err, tt.want)
		}
	}
	_, err := a2a.Decode([]byte(`{"jsonrpc":"2.0","id":1,"error":{"code":-32099,"message":"custom"}}`))
	var ae *a2a.Error
	if !errors.As(err, &ae) || ae.Code != -32099 || !errors.Is(err, a2a.ErrRemote) || errors.Is(err, a2a.ErrServer) {
		t.Errorf("unknown code: %v", err)
	}
	_, err = a2a.Decode([]byte(`{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"context id does not match"}}`))
	if !errors.Is(err, a2a.ErrInvalidParams) || errors.Is(err, a2a.ErrTaskTerminal) {
		t.Errorf("context mismatch: %v", err)
	}
	// REST errors: google.rpc.Status by reason, and RFC 9457 problem details.
	_, err = a2a.Decode([]byte(`{"error":{"code":400,"status":"FAILED_PRECONDITION","message":"no","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"UNSUPPORTED_OPERATION","domain":"a2a-protocol.org"}]}}`))
	if !errors.Is(err, a2a.ErrUnsupportedOperation) || !errors.Is(err, a2a.ErrTaskTerminal) {
		t.Errorf("REST reason: %v", err)
	}
	_, err = a2a.Decode([]byte(`{"type":"https://a2a-protocol.org/errors/version-not-supported","title":"Protocol version not supported","status":400,"detail":"2.0","supportedVersions":["1.0","0.3"]}`))
	if !errors.Is(err, a2a.ErrVersionNotSupported) {
		t.Errorf("problem details: %v", err)
	}
}
