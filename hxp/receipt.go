package hxp

import (
	"bytes"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/mail"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hitlkit/hitlkit/internal/decision"
	"github.com/hitlkit/hitlkit/internal/hxphash"
	"github.com/hitlkit/hitlkit/internal/pattern"
	"github.com/hitlkit/hitlkit/transport"
)

// The request statuses (§4.1, and the reference server's HXP-Status header). pending and
// assigned are waiting; the others are terminal.
const (
	statusPending   = "pending"
	statusAssigned  = "assigned"
	statusCompleted = "completed"
	statusExpired   = "expired"
	statusFailed    = "failed"
	statusCancelled = "cancelled"
)

// The APPROVE results (§2.2).
const (
	Approved = "approved"
	Rejected = "rejected"
)

// SystemResponder is the completed_by of a receipt the server issued itself, applying a
// DECIDE's default_option on timeout (observed on the reference server).
const SystemResponder = "system"

// Receipt is an execution receipt (§4.1). Result is raw JSON: a string for DECIDE and
// APPROVE, a value of the input type for PROVIDE. CompletedAt is kept as sent, since the
// evidence hash covers its exact spelling.
//
// The reason may be any JSON value (the reference server stores whatever the human sent):
// ReasonRaw holds it as sent, and Reason its text when it is a string. When marshalling,
// ReasonRaw wins over Reason.
type Receipt struct {
	RequestID       string          `json:"request_id"`
	Status          string          `json:"status"`
	Result          json.RawMessage `json:"result,omitempty"`
	Reason          string          `json:"-"`
	ReasonRaw       json.RawMessage `json:"-"`
	CompletedBy     string          `json:"completed_by,omitempty"`
	CompletedAt     string          `json:"completed_at,omitempty"`
	DurationSeconds float64         `json:"duration_seconds,omitempty"`
	EvidenceHash    string          `json:"evidence_hash,omitempty"`

	raw json.RawMessage // the receipt as the server sent it
}

// receiptFields is Receipt's wire form.
type receiptFields struct {
	RequestID       string          `json:"request_id"`
	Status          string          `json:"status"`
	Result          json.RawMessage `json:"result,omitempty"`
	Reason          json.RawMessage `json:"reason,omitempty"`
	CompletedBy     string          `json:"completed_by,omitempty"`
	CompletedAt     string          `json:"completed_at,omitempty"`
	DurationSeconds float64         `json:"duration_seconds,omitempty"`
	EvidenceHash    string          `json:"evidence_hash,omitempty"`
}

// UnmarshalJSON reads a receipt, its reason as any JSON value, and keeps the bytes as sent.
func (r *Receipt) UnmarshalJSON(b []byte) error {
	var w receiptFields
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*r = Receipt{RequestID: w.RequestID, Status: w.Status, Result: w.Result, CompletedBy: w.CompletedBy,
		CompletedAt: w.CompletedAt, DurationSeconds: w.DurationSeconds, EvidenceHash: w.EvidenceHash,
		raw: append(json.RawMessage(nil), b...)}
	if len(w.Reason) > 0 && string(w.Reason) != "null" {
		r.ReasonRaw = w.Reason
		_ = json.Unmarshal(w.Reason, &r.Reason) // text only when it is a string
	}
	return nil
}

// MarshalJSON writes the receipt's fields (ReasonRaw, or Reason as a string).
func (r Receipt) MarshalJSON() ([]byte, error) {
	w := receiptFields{RequestID: r.RequestID, Status: r.Status, Result: r.Result, Reason: r.ReasonRaw,
		CompletedBy: r.CompletedBy, CompletedAt: r.CompletedAt, DurationSeconds: r.DurationSeconds, EvidenceHash: r.EvidenceHash}
	if len(w.Reason) == 0 && r.Reason != "" {
		w.Reason, _ = json.Marshal(r.Reason)
	}
	return json.Marshal(w)
}

// ReceiptOf returns the receipt a [Client.Wait] Result carries, with CompletedAt and the
// evidence hash exactly as the server sent them, so [Receipt.VerifyEvidence] needs no other
// request. It fails with transport.ErrNoData when the Result has none (a request that ended
// without a receipt).
func ReceiptOf(res *transport.Result) (*Receipt, error) {
	if res == nil || len(res.Receipt) == 0 {
		return nil, transport.ErrNoData
	}
	var rc Receipt
	if err := json.Unmarshal(res.Receipt, &rc); err != nil {
		return nil, fmt.Errorf("%w: receipt: %w", ErrMalformed, err)
	}
	return &rc, nil
}

// ErrReceiptMismatch: a receipt does not fit the request it answers; the concrete error is a
// [*ReceiptMismatchError].
var ErrReceiptMismatch = errors.New("hxp: receipt does not match the request")

// ReceiptMismatchError says how a receipt fails its request: Field names the part of the
// receipt (result, reason, request) and Problem what is wrong with it. It is not
// transport.ErrMismatch, which names an answer for another request altogether.
type ReceiptMismatchError struct {
	Field   string
	Problem string
}

func (e *ReceiptMismatchError) Error() string {
	return "hxp: receipt does not match the request: " + e.Field + ": " + e.Problem
}

// Is matches ErrReceiptMismatch.
func (e *ReceiptMismatchError) Is(target error) bool { return target == ErrReceiptMismatch }

// Check reports whether a completed receipt's result fits req: an option of a DECIDE,
// approved or rejected (with a reason when required) for an APPROVE, a value of the input
// type within the validation for a PROVIDE; a completed receipt without a result (none, or
// JSON null) fits no request. Receipts of other statuses carry no result to check and pass.
func (r *Receipt) Check(req *Request) error {
	if r.Status != statusCompleted {
		return nil
	}
	if req == nil {
		return &ReceiptMismatchError{"request", "unknown"}
	}
	mismatch := func(field, problem string) error { return &ReceiptMismatchError{field, problem} }
	if t := bytes.TrimSpace(r.Result); len(t) == 0 || string(t) == "null" {
		// null reads as any Go string: it would pass as a PROVIDE's empty text.
		return mismatch("result", "none")
	}
	var s string
	isString := json.Unmarshal(r.Result, &s) == nil
	switch req.Action() {
	case ActionDecide:
		if !isString || !slices.Contains(req.Decide.Options, s) {
			return mismatch("result", "not one of the options")
		}
	case ActionApprove:
		switch {
		case !isString || (s != Approved && s != Rejected):
			return mismatch("result", `neither "approved" nor "rejected"`)
		case s == Rejected && req.Approve.RejectRequiresReason && strings.TrimSpace(r.Reason) == "":
			return mismatch("reason", "rejection without the required reason")
		}
	case ActionProvide:
		if problem := checkValue(req.Provide, r.Result); problem != "" {
			return mismatch("result", problem)
		}
	default:
		return mismatch("request", "no action")
	}
	return nil
}

// maxEmailLength is the longest address SMTP carries (RFC 5321 §4.5.3.1.3: a path of 256
// bytes with its angle brackets); a longer one is refused before net/mail reads it.
const maxEmailLength = 254

// checkValue checks a PROVIDE's value against its input type and validation (§2.3). Its work
// is bounded whatever the server sends: a pattern is matched within pattern.MaxSteps (a value
// too long for that is a mismatch), an email address is read only up to 254 bytes.
func checkValue(p *Provide, raw json.RawMessage) string {
	var s string
	var n float64
	isString := json.Unmarshal(raw, &s) == nil
	isNumber := json.Unmarshal(raw, &n) == nil
	if !isNumber && isString && p.InputType == InputNumber {
		// A number typed into a text box often arrives as a string.
		if f, err := strconv.ParseFloat(strings.TrimSpace(s), 64); err == nil {
			n, isNumber = f, true
		}
	}
	v := p.Validation
	if v == nil {
		v = &Validation{}
	}
	switch p.InputType {
	case InputNumber:
		if !isNumber || math.IsNaN(n) {
			return "not a number"
		}
		if (v.Min != nil && n < *v.Min) || (v.Max != nil && n > *v.Max) {
			return "outside the allowed range"
		}
		return ""
	case InputURL:
		if u, err := url.Parse(s); !isString || err != nil || u.Scheme == "" || u.Host == "" {
			return "not an absolute URL"
		}
	case InputEmail:
		if !isString || len(s) > maxEmailLength {
			return "not an email address"
		}
		if a, err := mail.ParseAddress(s); err != nil || a.Address != s {
			return "not an email address"
		}
	case InputSelection:
		if !isString || (len(v.AllowedValues) > 0 && !slices.Contains(v.AllowedValues, s)) {
			return "not one of the allowed values"
		}
	default: // text, file, and types of later versions
		if !isString {
			return "not a string"
		}
	}
	if v.Pattern != "" {
		// Validate refuses a pattern Compile refuses; one that slipped past it is not checked.
		if re, err := pattern.Compile(v.Pattern); err == nil {
			var b pattern.Budget
			switch ok, within := b.Match(re, s); {
			case !within:
				return "too long to check against the pattern"
			case !ok:
				return "does not match the pattern"
			}
		}
	}
	l := float64(len([]rune(s)))
	if (v.Min != nil && l < *v.Min) || (v.Max != nil && l > *v.Max) {
		return "length outside the allowed range"
	}
	if len(v.AllowedValues) > 0 && !slices.Contains(v.AllowedValues, s) {
		return "not one of the allowed values"
	}
	return ""
}

// HashFormula is a way of computing a receipt's evidence hash (§4.2).
type HashFormula int

// The formulas in use.
const (
	// HashSpec is §4.2 as written: SHA-256(request_id + result + completed_at +
	// server_secret), the result as its text (a string's value, otherwise its JSON).
	HashSpec HashFormula = iota + 1
	// HashReference is what the reference server computes: SHA-256(request_id + ":" +
	// JSON(result) + ":" + completed_at + ":" + server_secret).
	HashReference
)

// VerifyEvidence recomputes the evidence hash with the server's secret and formula and
// compares it with the receipt's, in constant time. Hex case and a "sha256:" prefix are
// ignored. The hash is keyed by the server's secret: only an agent that holds it can verify,
// and it proves the receipt came from a holder of that secret, nothing more.
func (r *Receipt) VerifyEvidence(secret []byte, f HashFormula) bool {
	got, err := hex.DecodeString(strings.TrimPrefix(strings.ToLower(r.EvidenceHash), "sha256:"))
	if err != nil || len(got) != sha256.Size || len(secret) == 0 {
		return false
	}
	want := hxphash.Sum(r.RequestID, r.Result, r.CompletedAt, secret, f == HashReference)
	return subtle.ConstantTimeCompare(got, want) == 1
}

// result turns a terminal receipt into the shared Result. A DECIDE's option or an APPROVE's
// approved/rejected is the Action; the Decision is DecisionApprove or DecisionReject for the
// APPROVE, DecisionAnswer for an option or a PROVIDE; the raw result is the Data. A receipt the server issued
// itself (completed_by "system": the default option on timeout) is an expiry with the
// default applied, never a human decision.
func (r *Receipt) result(req *Request) *transport.Result {
	res := &transport.Result{CaseID: r.RequestID, Reason: r.Reason, Data: nonNull(r.Result), Receipt: r.raw}
	if len(res.Receipt) == 0 && r.CompletedAt != "" {
		res.Receipt, _ = json.Marshal(r)
	}
	res.EndedAt, _ = time.Parse(time.RFC3339Nano, r.CompletedAt)
	var s string
	isString := json.Unmarshal(r.Result, &s) == nil
	switch r.Status {
	case statusCompleted:
		switch {
		case r.CompletedBy == SystemResponder:
			res.Status, res.DefaultApplied = transport.StatusExpired, true
			if isString {
				res.DefaultAction = s
			}
		default:
			res.Status, res.Decision = transport.StatusCompleted, transport.DecisionAnswer
			switch {
			case req != nil && req.Action() == ActionProvide:
				res.Action = "provide" // the value is Data only, never an action
			case isString && req != nil && req.Action() == ActionDecide:
				res.Action = s
			case isString && (s == Approved || s == Rejected):
				res.Action, res.Decision = s, decision.Of(s) // an APPROVE's answer, whatever the request
			case isString && req != nil:
				res.Action = s
			}
			if r.CompletedBy != "" {
				res.RespondedBy = &transport.Responder{Name: r.CompletedBy}
			}
		}
	case statusExpired:
		res.Status = transport.StatusExpired
		if isString && s != "" {
			res.DefaultAction, res.DefaultApplied = s, true
		}
	case statusFailed:
		res.Status = transport.StatusFailed
	case statusCancelled:
		res.Status = transport.StatusCancelled
	default:
		return nil
	}
	return res
}

func nonNull(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	return raw
}

// Value returns a PROVIDE's value from its Result, typed by the input type: a float64 for
// number (a numeric string is accepted), a string for every other type.
func Value(res *transport.Result, t InputType) (any, error) {
	if res == nil || len(res.Data) == 0 {
		return nil, transport.ErrNoData
	}
	var s string
	isString := json.Unmarshal(res.Data, &s) == nil
	if t == InputNumber {
		var n float64
		if json.Unmarshal(res.Data, &n) == nil {
			return n, nil
		}
		if f, err := strconv.ParseFloat(strings.TrimSpace(s), 64); isString && err == nil {
			return f, nil
		}
		return nil, errors.New("hxp: the value is not a number")
	}
	if !isString {
		return nil, fmt.Errorf("hxp: the %s value is not a string", t)
	}
	return s, nil
}
