package hitl

import (
	"encoding/json"
	"slices"
	"strings"
)

// The verification policy modes of HITL Protocol v0.8 §7.6.
const (
	VerificationOptional = "optional"
	VerificationRequired = "required"
	VerificationStepUp   = "step_up"
)

// The submission paths a verification policy may apply to (§7.6 required_for).
const (
	ForInlineSubmit  = "inline_submit"
	ForBrowserSubmit = "browser_submit"
)

// VerificationPolicy is a case's verification_policy (HITL Protocol v0.8 §7.6): what proof
// the service wants before it accepts an answer, and on which submission path.
type VerificationPolicy struct {
	// Mode is optional, required or step_up; absent reads as required.
	Mode        string   `json:"mode,omitempty"`
	RequiredFor []string `json:"required_for"`
	// Requirements is satisfied by every entry of any one AnyOf branch.
	Requirements struct {
		AnyOf []struct {
			AllOf []ProofRequirement `json:"all_of"`
		} `json:"any_of"`
	} `json:"requirements"`
	// Binding and Fallback are kept raw: the service enforces them.
	Binding  json.RawMessage `json:"binding,omitempty"`
	Fallback json.RawMessage `json:"fallback,omitempty"`
}

// ProofRequirement is one proof a policy asks for. An empty Provider means any provider;
// an empty MinAssurance means any assurance.
type ProofRequirement struct {
	ProofType    string `json:"proof_type"`
	Provider     string `json:"provider,omitempty"`
	MinAssurance string `json:"min_assurance,omitempty"`
	// PresentationFormats lists the formats the service accepts; empty means any.
	PresentationFormats []string `json:"presentation_formats,omitempty"`
}

// Capability is one proof the agent's channel can obtain from its human: a proof type, the
// provider that issues it, and the highest assurance it reaches (low, medium or high).
type Capability struct {
	ProofType string
	Provider  string
	Assurance string
}

// Verification returns the case's verification policy, or nil and no error when it has none.
func (c *Case) Verification() (*VerificationPolicy, error) {
	if len(c.VerificationPolicy) == 0 || string(c.VerificationPolicy) == "null" {
		return nil, nil
	}
	var p VerificationPolicy
	if err := json.Unmarshal(c.VerificationPolicy, &p); err != nil {
		f := fieldErrorFromJSON(err)
		f.Field = "verification_policy." + strings.TrimPrefix(f.Field, "hitl")
		return nil, &InvalidError{Object: "hitl", Problems: []FieldError{f}, Case: c}
	}
	return &p, nil
}

// Applies reports whether the policy covers the submission path (ForInlineSubmit or
// ForBrowserSubmit).
func (p *VerificationPolicy) Applies(path string) bool {
	return p != nil && slices.Contains(p.RequiredFor, path)
}

// Demands reports whether the policy makes proof mandatory on path: it applies there and its
// mode is not optional.
func (p *VerificationPolicy) Demands(path string) bool {
	return p.Applies(path) && p.Mode != VerificationOptional
}

// SatisfiedBy is the preflight of §7.6: whether the agent's capabilities meet every entry of
// some any_of branch. A policy with no branches is satisfied by nothing.
func (p *VerificationPolicy) SatisfiedBy(caps []Capability) bool {
	if p == nil {
		return true
	}
	for _, branch := range p.Requirements.AnyOf {
		if len(branch.AllOf) == 0 {
			continue
		}
		ok := true
		for _, req := range branch.AllOf {
			if !slices.ContainsFunc(caps, req.metBy) {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

func (r ProofRequirement) metBy(c Capability) bool {
	return c.ProofType == r.ProofType &&
		(r.Provider == "" || c.Provider == r.Provider) &&
		assuranceRank(c.Assurance) >= assuranceRank(r.MinAssurance)
}

// assuranceRank orders §7.6's assurance levels; absent is the lowest requirement.
func assuranceRank(level string) int {
	switch level {
	case "":
		return 0
	case "low":
		return 1
	case "medium":
		return 2
	case "high":
		return 3
	}
	return -1
}

// InlineAllowed is the whole preflight for offering buttons on a case: the case offers inline
// submit and, when its verification policy demands proof for inline submit, caps satisfy it.
// When it returns false, send the human the review URL instead.
func (c *Case) InlineAllowed(caps []Capability) (bool, error) {
	if !c.inlineSubmit() || len(c.InlineChoices()) == 0 {
		return false, nil
	}
	p, err := c.Verification()
	if err != nil {
		return false, err
	}
	if !p.Demands(ForInlineSubmit) {
		return true, nil
	}
	return p.SatisfiedBy(caps), nil
}
