package a2a

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/hitlkit/hitlkit/internal/decision"
	"github.com/hitlkit/hitlkit/internal/httpx"
)

// Sentinels for the error codes A2A servers send (A2A 0.3 §8 and 1.0 §5.4 use the same
// numbers; -31401 and -31403 are a2a-go's). ErrTaskNotFound, ErrTaskNotCancelable,
// ErrTaskTerminal and ErrRemote match an [*Error] with errors.Is; for the other codes read
// the Error's Code with errors.As.
var (
	errParse                     = errors.New("a2a: JSON parse error")                   // -32700
	errInvalidRequest            = errors.New("a2a: invalid request")                    // -32600
	errMethodNotFound            = errors.New("a2a: method not found")                   // -32601
	errInvalidParams             = errors.New("a2a: invalid params")                     // -32602
	errInternal                  = errors.New("a2a: internal error")                     // -32603
	errServer                    = errors.New("a2a: server error")                       // -32000
	ErrTaskNotFound              = errors.New("a2a: task not found")                     // -32001
	ErrTaskNotCancelable         = errors.New("a2a: task not cancelable")                // -32002
	errPushNotSupported          = errors.New("a2a: push notifications not supported")   // -32003
	errUnsupportedOperation      = errors.New("a2a: unsupported operation")              // -32004
	errContentTypeNotSupported   = errors.New("a2a: content type not supported")         // -32005
	errInvalidAgentResponse      = errors.New("a2a: invalid agent response")             // -32006
	errExtendedCardNotConfigured = errors.New("a2a: extended agent card not configured") // -32007
	errExtensionSupportRequired  = errors.New("a2a: extension support required")         // -32008
	errVersionNotSupported       = errors.New("a2a: protocol version not supported")     // -32009
	errUnauthenticated           = errors.New("a2a: unauthenticated")                    // -31401
	errPermissionDenied          = errors.New("a2a: permission denied")                  // -31403
	// ErrTaskTerminal matches a refusal to touch a task that has already ended: the spec's
	// -32004 UnsupportedOperationError, and a2a-go's -32602 "task in a terminal state".
	ErrTaskTerminal = errors.New("a2a: task is in a terminal state")
	// ErrRemote matches every [*Error], whatever its code.
	ErrRemote = errors.New("a2a: error from the agent")
	// ErrRepeatedError: the agent gave the same transient error (an internal or server error)
	// 8 times in a row; the wait ends with it instead of lasting until the
	// caller's deadline.
	ErrRepeatedError = errors.New("a2a: the agent kept answering with the same error")
)

// mismatch reports a task that is not the continuation of the task asked about: another id,
// or the same id in another context.
func mismatch(taskID, contextID string, t *Task) error {
	if t == nil {
		return nil
	}
	if t.ID != taskID {
		return decision.Mismatch("task", taskID, t.ID)
	}
	if contextID != "" && t.ContextID != "" && t.ContextID != contextID {
		return decision.Mismatch("task context", contextID, t.ContextID)
	}
	return nil
}

// codes maps each error code to its sentinel (one table for both versions).
var codes = map[int]error{
	-32700: errParse, -32600: errInvalidRequest, -32601: errMethodNotFound,
	-32602: errInvalidParams, -32603: errInternal, -32000: errServer,
	-32001: ErrTaskNotFound, -32002: ErrTaskNotCancelable, -32003: errPushNotSupported,
	-32004: errUnsupportedOperation, -32005: errContentTypeNotSupported,
	-32006: errInvalidAgentResponse, -32007: errExtendedCardNotConfigured,
	-32008: errExtensionSupportRequired, -32009: errVersionNotSupported,
	-31401: errUnauthenticated, -31403: errPermissionDenied,
}

// reasons maps a google.rpc.ErrorInfo reason (1.0 §5.4: the error name in UPPER_SNAKE
// without "Error") to its JSON-RPC code, for REST errors.
var reasons = map[string]int{
	"TASK_NOT_FOUND": -32001, "TASK_NOT_CANCELABLE": -32002,
	"PUSH_NOTIFICATION_NOT_SUPPORTED": -32003, "UNSUPPORTED_OPERATION": -32004,
	"CONTENT_TYPE_NOT_SUPPORTED": -32005, "INVALID_AGENT_RESPONSE": -32006,
	"EXTENDED_AGENT_CARD_NOT_CONFIGURED": -32007, "AUTHENTICATED_EXTENDED_CARD_NOT_CONFIGURED": -32007,
	"EXTENSION_SUPPORT_REQUIRED": -32008, "VERSION_NOT_SUPPORTED": -32009,
	"INVALID_PARAMS": -32602, "INVALID_REQUEST": -32600, "METHOD_NOT_FOUND": -32601,
	"INTERNAL_ERROR": -32603, "PARSE_ERROR": -32700,
}

// Error is an error the agent reported: a JSON-RPC error object, or a REST error
// (google.rpc.Status JSON or RFC 9457 problem details). Code is the JSON-RPC code; for a REST
// error it is derived from the ErrorInfo reason, or else from the HTTP status.
type Error struct {
	Code    int
	Message string
	// Reason is the google.rpc.ErrorInfo reason when the agent sent one (TASK_NOT_FOUND).
	Reason string
	// HTTPStatus is the response's status code; 200 for JSON-RPC errors and in-stream errors.
	HTTPStatus int
	// Data is the error's data (JSON-RPC) or details (REST), raw.
	Data json.RawMessage
}

func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "a2a: agent error %d", e.Code)
	if e.Reason != "" {
		fmt.Fprintf(&b, " %s", e.Reason)
	}
	if m := e.Message; m != "" {
		fmt.Fprintf(&b, ": %s", httpx.Scrub(m, 200))
	}
	return b.String()
}

// Is matches ErrRemote, the sentinel of e's code, ErrTaskTerminal for the ways agents
// refuse a message to an ended task: -32004, or any error that says "terminal" in its message
// or its data (a string, or an object's "error", "message", "reason" or "detail" member) —
// a2a-go v0.3 answers -32602 with the reason in data.error — and ErrTaskNotFound for every
// way agents say they do not know a task: -32001, a TASK_NOT_FOUND reason, a REST 404, and
// an invalid-params, internal or server error (-32602, -32603, -32000) that says "task not
// found" or carries gRPC's "code = NotFound" (Hector v1.9.9 answers a query by name for an
// unknown task with -32602 "Task not found: rpc error: code = NotFound …").
func (e *Error) Is(target error) bool {
	switch {
	case target == ErrRemote:
		return true
	case target == ErrTaskTerminal:
		return e.Code == -32004 || mentionsTerminal(e.Message) || mentionsTerminal(dataText(e.Data))
	case target == ErrTaskNotFound && e.notFound():
		return true
	}
	s, ok := codes[e.Code]
	return ok && s == target
}

// notFound reports a refusal in another code than -32001 that says the task is unknown.
func (e *Error) notFound() bool {
	if e.Reason == "TASK_NOT_FOUND" {
		return true
	}
	switch e.Code {
	case -32602, -32603, -32000:
		return mentionsNotFound(e.Message) || mentionsNotFound(dataText(e.Data))
	}
	return false
}

// mentionsNotFound reports a text that says a task is unknown, in the words agents use.
func mentionsNotFound(s string) bool {
	s = strings.ToLower(s)
	return strings.Contains(s, "task not found") || strings.Contains(s, "code = notfound")
}

// withStatus records the HTTP status an error came with, and derives the code from it when
// the body gave none.
func (e *Error) withStatus(status int) *Error {
	e.HTTPStatus = status
	if e.Code == 0 {
		e.Code = restCode(e.Reason, status)
	}
	return e
}

func mentionsTerminal(s string) bool { return strings.Contains(strings.ToLower(s), "terminal") }

// dataText is the text an error's data carries: the string itself, or the "error",
// "message", "reason" and "detail" members of an object, joined.
func dataText(data json.RawMessage) string {
	var s string
	if json.Unmarshal(data, &s) == nil {
		return s
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(data, &obj) != nil {
		return ""
	}
	var parts []string
	for _, k := range []string{"error", "message", "reason", "detail"} {
		if json.Unmarshal(obj[k], &s) == nil {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, " ")
}

// Problems with a response that is not a well-formed A2A answer. Each is distinct, and each
// also matches ErrMalformed. A malformed response is never taken for a paused task.
var (
	ErrMalformed = errors.New("a2a: malformed response")
	// ErrNotJSON: the body is not JSON (an HTML error page, text, a cut-off body).
	ErrNotJSON = errors.New("body is not JSON")
	// errNotJSONRPC: a JSON-RPC envelope whose "jsonrpc" member is not "2.0".
	errNotJSONRPC = errors.New(`envelope "jsonrpc" is not "2.0"`)
	// ErrResultAndError: an envelope with both "result" and "error".
	ErrResultAndError = errors.New(`envelope has both "result" and "error"`)
	// errNoResult: an envelope with neither "result" nor "error".
	errNoResult = errors.New(`envelope has neither "result" nor "error"`)
	// errIDMismatch: the envelope's id is not the request's.
	errIDMismatch = errors.New("envelope id does not match the request")
	// errBadErrorObject: an error object whose code is not an integer, or that is not an object.
	errBadErrorObject = errors.New("error object is malformed")
	// errUnrecognised: JSON, but not a task, message or event of any version.
	errUnrecognised = errors.New("not a task, message or event")
)

// MalformedError is a response that is not a well-formed A2A answer. errors.Is matches
// ErrMalformed and Problem.
type MalformedError struct {
	Problem error
	// Detail says where, when there is more to say; it never holds the body.
	Detail string
}

func (e *MalformedError) Error() string {
	if e.Detail != "" {
		return fmt.Sprintf("a2a: malformed response: %v (%s)", e.Problem, e.Detail)
	}
	return fmt.Sprintf("a2a: malformed response: %v", e.Problem)
}

func (e *MalformedError) Unwrap() []error { return []error{ErrMalformed, e.Problem} }

// scrub bounds the text an agent sent back into err (an [*Error]'s message and reason, a
// [*MalformedError]'s detail) and redacts every secret req carried, so that an agent echoing
// the credential cannot get it into an error string or a log.
func scrub(err error, req *http.Request) error {
	if err == nil {
		return nil
	}
	secrets := httpx.Secrets(req)
	var ae *Error
	if errors.As(err, &ae) {
		ae.Message = httpx.Scrub(ae.Message, 200, secrets...)
		ae.Reason = httpx.Scrub(ae.Reason, 64, secrets...)
		ae.Data = httpx.ScrubBytes(ae.Data, len(ae.Data), secrets...)
	}
	var me *MalformedError
	if errors.As(err, &me) {
		me.Detail = httpx.Scrub(me.Detail, 120, secrets...)
	}
	return err
}

func malformed(problem error, detail string) error {
	return &MalformedError{Problem: problem, Detail: detail}
}

// Errors of the client's own checks, made before any request.
var (
	// ErrNotPaused: a resume was asked of a task that is not waiting for input.
	ErrNotPaused = errors.New("a2a: task is not paused for input")
	// ErrNoEndpoint: a pause or call without an endpoint URL or with an unknown binding.
	ErrNoEndpoint = errors.New("a2a: no usable endpoint")
	// ErrNoAnswer: an Asker returned an answer without parts.
	ErrNoAnswer = errors.New("a2a: answer has no parts: build it with a2a.Approve, a2a.Reject or a2a.Text")
	// ErrTooManyTurns: the task kept asking past RunOptions.MaxTurns.
	ErrTooManyTurns = errors.New("a2a: task kept asking for input")
	// ErrMessageReply: the agent answered with a message, not a task: there is nothing to wait on.
	ErrMessageReply = errors.New("a2a: agent replied with a message, not a task")
	// ErrRepeatedToolCall matches a [*RepeatedCallError].
	ErrRepeatedToolCall = errors.New("a2a: the task kept asking about a tool call already answered")
)

// RepeatedCallError ends a [Client.Run] whose task kept asking about the same tool call,
// with the same arguments, right after each answer: the call was put to the human
// RunOptions.MaxAsksPerCall times (default 3) and the agent took none of the answers.
// errors.Is matches ErrRepeatedToolCall. The task is still paused.
type RepeatedCallError struct {
	TaskID string
	// Call is the tool call asked about; Action the last answer's action (empty for an
	// answer without one); Asked how often the call was put to the human.
	Call   ToolCall
	Action string
	Asked  int
}

func (e *RepeatedCallError) Error() string {
	id := ""
	if e.Call.CallID != "" {
		id = " (call " + httpx.Scrub(e.Call.CallID, 64) + ")"
	}
	return fmt.Sprintf("a2a: task %s asked again about %s%s after the human answered it %d times (last %q); none was taken",
		httpx.Scrub(e.TaskID, 64), httpx.Scrub(e.Call.Name, 64), id, e.Asked, httpx.Scrub(e.Action, 64))
}

func (e *RepeatedCallError) Unwrap() error { return ErrRepeatedToolCall }

// errNilClient is what a method of a nil *Client returns, where it would otherwise panic.
var errNilClient = errors.New("a2a: nil *Client: build one with a2a.NewClient")
