package telemetry_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"github.com/hitlkit/hitlkit/hitl"
	"github.com/hitlkit/hitlkit/hitl/hitltest"
	"github.com/hitlkit/hitlkit/transport"
)

// The audit trail kept in a file: one JSON line per decision, written by transport.AuditLog.
func Example_audit() {
	dir, _ := os.MkdirTemp("", "audit")
	defer os.RemoveAll(dir)
	f, err := os.OpenFile(filepath.Join(dir, "decisions.jsonl"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		panic(err)
	}

	svc := hitltest.NewUnstartedServer() // a fake HITL service on loopback
	svc.Start()
	defer svc.Close()
	go func() { // the human says no
		_ = svc.Respond(svc.NextCase(nil), "reject", map[string]string{"feedback": "not on a Friday"},
			&transport.Responder{Name: "Ada Lovelace", Email: "ada@example.com"})
	}()
	client, _ := hitl.NewClient(
		transport.WithHTTPClient(svc.Client()), transport.WithAllowPrivateAddresses(),
		transport.WithAudit(transport.AuditLog(f, func(err error) { fmt.Println("audit:", err) })),
		hitl.WithForwarder(func(context.Context, *hitl.Interrupt) error { return nil }),
	)
	req, _ := http.NewRequest(http.MethodPost, svc.URL+"/actions/approval", strings.NewReader(`{}`))
	resp, err := client.Do(context.Background(), req, &hitl.CallOptions{Wait: &hitl.WaitOptions{PollOnly: true}})
	if resp != nil {
		resp.Body.Close()
	}
	_ = f.Close()

	r, _ := os.Open(filepath.Join(dir, "decisions.jsonl"))
	defer r.Close()
	for sc := bufio.NewScanner(r); sc.Scan(); {
		var rec transport.Record
		_ = json.Unmarshal(sc.Bytes(), &rec)
		fmt.Println(rec.Protocol, rec.Kind, rec.Status, rec.Decision, rec.Action, "by", rec.RespondedBy.Name)
		fmt.Println("learned by", rec.LearnedBy, "confirmed", rec.Confirmed, "prompt digest", len(rec.PromptSHA256), "hex digits")
	}
	// Output:
	// hitl hitl completed reject reject by Ada Lovelace
	// learned by poll confirmed true prompt digest 64 hex digits
}
