package a2a_test

import (
	"bytes"
	"errors"
	"testing"

	"github.com/hitlkit/hitlkit/a2a"
)

// FuzzDecode: any body decodes to exactly one event or to a typed error, never a panic; a
// paused class always yields a pause; a malformed body is never paused.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{task03Input, task10RPCInput, task10Bare, task03REST,
		`{"jsonrpc":"2.0","id":1,"error":{"code":-32001,"message":"x","data":[{"reason":"TASK_NOT_FOUND"}]}}`,
		`{"error":{"code":404,"status":"NOT_FOUND","message":"x"}}`,
		`{"id":"r1","status":{"state":"completed"},"metadata":{"hitl_pending":{"sink_agent_id":"b"}}}`,
		`{"statusUpdate":{"taskId":"t1","status":{"state":"TASK_STATE_AUTH_REQUIRED"}}}`,
		`{"kind":"artifact-update","taskId":"t1","artifact":{"parts":[{"kind":"text","text":"x"}]}}`,
		`{"type":"about:blank","title":"t","status":400}`, `<html>`, `[]`, `null`,
		`{"code":-32001,"message":"Task not found: t1"}`, `{"code":"x","message":"y"}`,
		`{"id":"t1","status":{"state":"input-required","message":{"role":"agent","parts":[{"kind":"text","text":"ok?","metadata":null}]}}}`,
		`{"id":"t1","status":{"state":"completed"},"artifacts":[{"parts":[],"metadata":{"state_delta":{"_pregel_metadata":"eyJpbnRlcnJ1cHRLZXkiOiJhcHByb3ZlIiwiaW50ZXJydXB0VmFsdWUiOnsidG9vbCI6IngiLCJhcmd1bWVudHMiOnt9fX0="}}}]}`,
		`{"id":"t1","status":{"state":"input-required","message":{"parts":[{"data":{"suspendPayload":{"toolName":"x","args":{"question":"q"}}}}]}}}`,
		`{"id":"t1","status":{"state":"input-required","message":{"parts":[{"data":{"id":"c","name":"ask_human","args":{"question":"q"}},"metadata":{"adk_is_long_running":true}}]}}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		ev, err := a2a.Decode(body)
		if err != nil {
			var me *a2a.MalformedError
			var ae *a2a.Error
			if ev != nil || (!errors.As(err, &me) && !errors.As(err, &ae)) {
				t.Fatalf("Decode = %v, %T %v", ev, err, err)
			}
			return
		}
		set := 0
		for _, b := range []bool{ev.Task != nil, ev.Message != nil, ev.Status != nil, ev.Artifact != nil} {
			if b {
				set++
			}
		}
		if set != 1 {
			t.Fatalf("%d members set", set)
		}
		if ev.Task != nil && ev.Class().Paused() != (a2a.NewPause(a2a.Endpoint{}, ev.Task) != nil) {
			t.Fatalf("class %s but pause %v", ev.Class(), a2a.NewPause(a2a.Endpoint{}, ev.Task))
		}
		if p := a2a.NewPause(a2a.Endpoint{}, ev.Task); p != nil {
			if p.Class == a2a.ClassInputRequired && p.Prompt() == "" {
				t.Fatalf("pause %v without a prompt", p)
			}
			p.ToolCall()
			_ = a2a.Approve(p)
			_ = a2a.Text(p, "x")
		}
	})
}

// FuzzReadStream: any stream reads to an event or a typed error, never a panic or a hang.
func FuzzReadStream(f *testing.F) {
	f.Add([]byte("data: " + task10Bare + "\n\n"))
	f.Add([]byte("id: 1\nevent: message\ndata: {\"task\":{\"id\":\"t1\",\r\ndata: \"status\":{\"state\":\"working\"}}}\r\n\r\n: ping\n\n"))
	f.Add([]byte("data: {\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-32001,\"message\":\"x\"}}\n\n"))
	f.Add([]byte("retry: 10\ndata"))
	f.Fuzz(func(t *testing.T, stream []byte) {
		ev, err := a2a.ReadStream(bytes.NewReader(stream))
		if (ev == nil) == (err == nil) {
			t.Fatalf("ReadStream = %v, %v", ev, err)
		}
	})
}
