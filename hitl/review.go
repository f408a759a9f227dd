package hitl

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/hitlkit/hitlkit/transport"
)

// Approval is the data of an approval review (HITL §10.2: approve, edit, reject).
type Approval struct {
	Feedback string          `json:"feedback,omitempty"`
	Edits    json.RawMessage `json:"edits,omitempty"`
}

// Selection is the data of a selection review (HITL §10.2: select). Selected also accepts the
// selected_ids spelling some services use.
type Selection struct {
	Selected []string `json:"selected"`
	Note     string   `json:"note,omitempty"`
}

// Confirmation is the data of a confirmation review (HITL §10.2: confirm, cancel).
type Confirmation struct {
	ConfirmedItems []string `json:"confirmed_items,omitempty"`
	Note           string   `json:"note,omitempty"`
}

// Escalation is the data of an escalation review (HITL §10.2: retry, skip, abort).
type Escalation struct {
	Reason         string          `json:"reason,omitempty"`
	ModifiedParams json.RawMessage `json:"modified_params,omitempty"`
}

// ApprovalOf decodes r's Data as an approval review's data. An approve or reject without
// data yields a zero Approval.
func ApprovalOf(r *transport.Result) (Approval, error) {
	var a Approval
	return a, decodeOptional(r, &a)
}

// SelectionOf decodes r's Data as a selection review's data. It fails with
// transport.ErrNoData when there is none.
func SelectionOf(r *transport.Result) (Selection, error) {
	var w struct {
		Selected    []string `json:"selected"`
		SelectedIDs []string `json:"selected_ids"`
		Note        string   `json:"note"`
	}
	if err := decodeData(r, &w); err != nil {
		return Selection{}, err
	}
	s := Selection{Selected: w.Selected, Note: w.Note}
	if s.Selected == nil {
		s.Selected = w.SelectedIDs
	}
	return s, nil
}

// InputOf decodes r's Data as an input review's values, keyed as the form's fields. Numbers
// are json.Number so that no precision is lost. It fails with transport.ErrNoData when there
// is no data.
func InputOf(r *transport.Result) (map[string]any, error) {
	if len(r.Data) == 0 || string(r.Data) == "null" {
		return nil, transport.ErrNoData
	}
	var m map[string]any
	dec := json.NewDecoder(bytes.NewReader(r.Data))
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("decode result data: %w", err)
	}
	return m, nil
}

// ConfirmationOf decodes r's Data as a confirmation review's data. A confirm without data
// yields a zero Confirmation.
func ConfirmationOf(r *transport.Result) (Confirmation, error) {
	var c Confirmation
	return c, decodeOptional(r, &c)
}

// EscalationOf decodes r's Data as an escalation review's data. A skip or abort without data
// yields a zero Escalation.
func EscalationOf(r *transport.Result) (Escalation, error) {
	var e Escalation
	return e, decodeOptional(r, &e)
}

// decodeData unmarshals r's Data into v; it fails with transport.ErrNoData when there is none.
func decodeData(r *transport.Result, v any) error {
	if len(r.Data) == 0 || string(r.Data) == "null" {
		return transport.ErrNoData
	}
	if err := json.Unmarshal(r.Data, v); err != nil {
		return fmt.Errorf("decode result data: %w", err)
	}
	return nil
}

func decodeOptional(r *transport.Result, v any) error {
	if err := decodeData(r, v); err != nil && !errors.Is(err, transport.ErrNoData) {
		return err
	}
	return nil
}

// Submission is how a HITL Protocol answer was submitted (v0.8 submission_context, §7.6):
// on the service's review page (browser_submit) or by an agent on a human's behalf
// (inline_submit), and what the service's verification concluded. It never holds raw proofs.
type Submission struct {
	// Mode is browser_submit or inline_submit.
	Mode string `json:"mode"`
	// SubmittedVia and SubmittedBy are set for inline_submit.
	SubmittedVia string          `json:"submitted_via,omitempty"`
	SubmittedBy  json.RawMessage `json:"submitted_by,omitempty"`
	// Verification is the service's verdict when a verification policy applied or evidence
	// was sent; nil otherwise.
	Verification *VerificationResult `json:"verification_result,omitempty"`
}

// VerificationResult is the service's normalised verdict on the evidence (§7.6).
type VerificationResult struct {
	Satisfied bool `json:"satisfied"`
	// VerifiedEvidence and MissingRequirements are the service's lists, raw.
	VerifiedEvidence    []json.RawMessage `json:"verified_evidence,omitempty"`
	MissingRequirements []json.RawMessage `json:"missing_requirements,omitempty"`
}

// SubmissionOf decodes r's SubmissionContext. It fails with transport.ErrNoData when the
// service sent none.
func SubmissionOf(r *transport.Result) (Submission, error) {
	var s Submission
	if len(r.SubmissionContext) == 0 {
		return s, transport.ErrNoData
	}
	if err := json.Unmarshal(r.SubmissionContext, &s); err != nil {
		return Submission{}, fmt.Errorf("decode submission_context: %w", err)
	}
	return s, nil
}
