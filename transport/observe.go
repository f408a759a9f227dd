package transport

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"slices"
	"sync"
	"time"

	"github.com/hitlkit/hitlkit/internal/telemetry"
)

// Question is what one wait is about, as [Config.Observe] records it: for the wait's span
// (Protocol, Kind, ID, ReviewType), its audit [Record] (the digests of Prompt and Arguments,
// TaskID, CheckReceipt) and the client's [Pending] list (Prompt). Only the ids reach
// telemetry; the prompt and arguments never do.
type Question struct {
	// Protocol names the protocol ("hitl", "a2a", "hxp", "hi", or one's own: "acme");
	// Kind the kind of question within it; ID the protocol's id for it (a case, a task).
	Protocol, Kind, ID string
	// ReviewType is a HITL review type, or "".
	ReviewType string
	// Prompt is the question as put to the human; Arguments the tool call's arguments as
	// sent, when the question is about one.
	Prompt    string
	Arguments []byte
	// TaskID is the A2A task the answer resumes, for the record's evidence.
	TaskID string
	// CheckReceipt reports that the wait checks the protocol's receipt against the request
	// before it returns a Result (hxp.WaitOptions.CheckReceipt).
	CheckReceipt bool
}

// Observe runs wait as one observed wait on q and returns its outcome: one span named
// hitl.wait, a child of the span in ctx (while a tracer provider is installed), the wait
// metrics, an entry in [Config.Pending] while it runs, and, for a Result, one audit [Record]
// to [WithAudit]'s hook; wait returning neither a Result nor an error is a wait that ends
// without a decision: its span has no status or decision, and it adds no decision latency.
// The [Wait]s run under the context wait is given record their polls,
// wake-ups and reconnects on the span, and the requests sent through the Config's Service
// carry its trace context. A question wait forwards to a human is recorded with [Forwarded].
//
// Inside a wait observed on the same question (a wait that runs another client's wait on it)
// wait runs as part of that one. Safe for concurrent use; it adds three allocations to a wait.
// This is how every client of this module observes its waits (see "Telemetry" in the package
// documentation); a client of one's own on [NewConfig] does the same.
func (c *Config) Observe(ctx context.Context, q Question, wait func(ctx context.Context) (*Result, error)) (*Result, error) {
	if o := observationIn(ctx); o != nil && o.q.ID == q.ID && q.ID != "" {
		return wait(ctx)
	}
	o := &observation{c: c, q: q}
	o.w.Owner = o
	ctx = c.tel.Begin(ctx, &o.w, q.Protocol, q.Kind, q.ID, q.ReviewType)
	if c.open != nil {
		c.open.add(o)
	}
	res, err := wait(ctx)
	o.end(ctx, res, err)
	return res, err
}

// Forwarded records, on the wait observed in ctx ([Config.Observe]), that its question was
// put to a human (err nil) or that the forwarder or asker failed (err: its type only is
// recorded). Outside an observed wait it does nothing.
func Forwarded(ctx context.Context, err error) {
	if o := observationIn(ctx); o != nil {
		o.w.Forwarded(ctx, err)
	}
}

// Pending lists the waits running now under [Config.Observe], oldest first. Safe for
// concurrent use.
func (c *Config) Pending() []Pending {
	if c == nil || c.open == nil {
		return nil
	}
	return c.open.list()
}

// observation is one observed wait.
type observation struct {
	w telemetry.Wait
	c *Config
	q Question
}

func observationIn(ctx context.Context) *observation {
	if w := telemetry.From(ctx); w != nil {
		o, _ := w.Owner.(*observation)
		return o
	}
	return nil
}

// end ends o with the wait's outcome: the span, the metrics, the pending entry and, for a
// Result, the audit record.
func (o *observation) end(ctx context.Context, res *Result, err error) {
	if o.c.open != nil {
		o.c.open.remove(o)
	}
	if (err == nil && res == nil) || (err != nil && errors.Is(context.Cause(ctx), telemetry.Paused)) {
		// A wait that returns no Result (a2a's Client.Wait), or one its caller paused on
		// purpose with the question still open (an MCP tool call's check).
		o.w.EndUndecided(ctx)
		return
	}
	if err != nil {
		o.w.End(ctx, "", "", false, "", err)
		return
	}
	learned, confirmed := "poll", true
	switch o.w.SettledBy() {
	case 1:
		learned, confirmed = "stream", false
		if o.q.Protocol == "hxp" { // HXP's one push source is the request's WebSocket
			learned = "websocket"
		}
	case 2:
		learned, confirmed = "callback", false
	}
	o.w.End(ctx, string(res.Status), string(res.Decision), res.DefaultApplied, learned, nil)
	if o.c.audit == nil {
		return
	}
	r := Record{
		Protocol: o.q.Protocol, Kind: o.q.Kind, ID: cmp.Or(o.q.ID, res.CaseID),
		AskedAt: o.w.Began(), DecidedAt: cmp.Or(res.EndedAt, time.Now()),
		PromptSHA256: digest([]byte(o.q.Prompt)), ArgumentsSHA256: digest(o.q.Arguments),
		Status: res.Status, Decision: res.Decision, Action: res.Action,
		DefaultApplied: res.DefaultApplied, DefaultAction: res.DefaultAction,
		RespondedBy: res.RespondedBy, LearnedBy: learned, Confirmed: confirmed,
		Evidence: Evidence{TaskID: o.q.TaskID, SignatureVerified: learned == "callback"},
	}
	if len(res.Receipt) > 0 {
		var rc struct {
			EvidenceHash string `json:"evidence_hash"`
		}
		if json.Unmarshal(res.Receipt, &rc) == nil && rc.EvidenceHash != "" {
			r.Evidence.ReceiptHash, r.Evidence.ReceiptChecked = rc.EvidenceHash, o.q.CheckReceipt
		}
	}
	o.c.audit(ctx, r)
}

func digest(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// openWaits is a client's list of the waits running now.
type openWaits struct {
	mu    sync.Mutex
	waits map[*observation]struct{}
}

func (l *openWaits) add(o *observation) {
	l.mu.Lock()
	if l.waits == nil {
		l.waits = make(map[*observation]struct{})
	}
	l.waits[o] = struct{}{}
	l.mu.Unlock()
}

func (l *openWaits) remove(o *observation) {
	l.mu.Lock()
	delete(l.waits, o)
	l.mu.Unlock()
}

func (l *openWaits) list() []Pending {
	l.mu.Lock()
	out := make([]Pending, 0, len(l.waits))
	for o := range l.waits {
		out = append(out, Pending{Protocol: o.q.Protocol, Kind: o.q.Kind, ID: o.q.ID,
			Prompt: o.q.Prompt, Since: o.w.Began(), Forwarded: o.w.WasForwarded(), Waiting: true})
	}
	l.mu.Unlock()
	slices.SortFunc(out, func(a, b Pending) int { return cmp.Or(a.Since.Compare(b.Since), cmp.Compare(a.ID, b.ID)) })
	return out
}
