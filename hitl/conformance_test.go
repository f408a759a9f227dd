package hitl_test

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/google/go-cmp/cmp"

	"github.com/hitlkit/hitlkit/hitl"
	"github.com/hitlkit/hitlkit/transport"
)

// flow is an example flow of the HITL Protocol test vectors (testdata/hitl-protocol).
type flow struct {
	Steps []struct {
		Step    any `json:"step"`
		Request *struct {
			Method  string            `json:"method"`
			URL     string            `json:"url"`
			Headers map[string]string `json:"headers"`
		} `json:"request"`
		Response *struct {
			Status  int               `json:"status"`
			Headers map[string]string `json:"headers"`
			Body    json.RawMessage   `json:"body"`
		} `json:"response"`
	} `json:"steps"`
}

func loadFlow(t testing.TB, name string) flow {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", "hitl-protocol", name))
	if err != nil {
		t.Fatal(err)
	}
	var f flow
	if err := json.Unmarshal(raw, &f); err != nil {
		t.Fatal(err)
	}
	return f
}

// round is one case of a flow: the 202 and the polls that follow it, up to the next 202.
type round struct {
	requestURL string
	auth       string
	accepted   string
	polls      []reply
}

func rounds(f flow) []round {
	var out []round
	var last string
	var auth string
	for _, s := range f.Steps {
		if s.Request != nil && s.Request.URL != "" && !strings.Contains(s.Request.URL, "/status") {
			last, auth = s.Request.URL, s.Request.Headers["Authorization"]
		}
		if s.Response == nil {
			continue
		}
		switch {
		case s.Response.Status == http.StatusAccepted && strings.Contains(string(s.Response.Body), `"hitl"`):
			out = append(out, round{requestURL: last, auth: auth, accepted: string(s.Response.Body)})
		case s.Request != nil && strings.Contains(s.Request.URL, "/status") && len(out) > 0:
			r := &out[len(out)-1]
			r.polls = append(r.polls, reply{status: s.Response.Status, header: s.Response.Headers, body: string(s.Response.Body)})
		}
	}
	return out
}

// want is what the SDK must make of one round.
type want struct {
	caseID, reviewType, defaultAction string
	status                            transport.Status
	action, nextCaseID, respondedBy   string
	polls                             int
}

// TestExampleFlows drives every example flow of the test vectors through Detect and, where
// the flow polls, through Wait against its own poll responses, in order.
func TestExampleFlows(t *testing.T) {
	tests := []struct {
		file  string
		wants []want
		check func(*testing.T, *transport.Result)
	}{
		{"01-job-search-selection.json", []want{{"review_jbs_a1b2c3d4e5", "selection", "skip", transport.StatusCompleted, "select", "", "Alex Mueller", 3}}, func(t *testing.T, r *transport.Result) {
			sel, err := hitl.SelectionOf(r)
			if diff := cmp.Diff([]string{"job_4d5e6f7g", "job_8h9i0j1k"}, sel.Selected); err != nil || diff != "" {
				t.Errorf("Selection() err %v, (-want +got):\n%s", err, diff)
			}
		}},
		{"02-deployment-approval.json", []want{{"review_deploy_f7e8d9c0b1", "approval", "reject", transport.StatusCompleted, "approve", "", "Torsten Heissler", 1}}, func(t *testing.T, r *transport.Result) {
			a, err := hitl.ApprovalOf(r)
			if err != nil || !strings.HasPrefix(a.Feedback, "Looks good.") || len(r.UnverifiedSignature) == 0 || r.Decision == "" {
				t.Errorf("Approval() = %+v, %v; signature kept %v", a, err, len(r.UnverifiedSignature) > 0)
			}
		}},
		{"03-content-review-edit.json", []want{
			{"review_content_r1_x8y9z0", "approval", "skip", transport.StatusCompleted, "edit", "review_content_r2_a1b2c3", "Alex Mueller", 1},
			{"review_content_r2_a1b2c3", "approval", "skip", transport.StatusCompleted, "approve", "", "Alex Mueller", 1}}, nil},
		{"04-input-form.json", []want{{"review_input_q1w2e3r4", "input", "skip", transport.StatusCompleted, "submit", "", "Alex Mueller", 1}}, func(t *testing.T, r *transport.Result) {
			in, err := hitl.InputOf(r)
			if err != nil || in["salary_expectation"] != json.Number("108000") {
				t.Errorf("Input() = %v, %v; want salary_expectation 108000 as a json.Number", in, err)
			}
		}},
		{"05-confirmation-gate.json", []want{{"review_confirm_s5t6u7v8", "confirmation", "abort", transport.StatusCompleted, "confirm", "", "Alex Mueller", 1}}, func(t *testing.T, r *transport.Result) {
			c, err := hitl.ConfirmationOf(r)
			if diff := cmp.Diff([]string{"email_001", "email_002", "email_003"}, c.ConfirmedItems); err != nil || diff != "" {
				t.Errorf("Confirmation() err %v, (-want +got):\n%s", err, diff)
			}
		}},
		{"06-escalation-error.json", []want{{"review_escalate_h2i3j4k5", "escalation", "abort", transport.StatusCompleted, "retry", "", "Torsten Heissler", 1}}, func(t *testing.T, r *transport.Result) {
			e, err := hitl.EscalationOf(r)
			var params map[string]any
			if err != nil || json.Unmarshal(e.ModifiedParams, &params) != nil || params["strategy"] != "canary" {
				t.Errorf("Escalation() = %+v, %v; want modified_params.strategy canary", e, err)
			}
		}},
		{"08-multi-step-input.json", []want{{"review_onboard_v8w9x0y1", "input", "skip", transport.StatusCompleted, "submit", "", "Sarah Chen", 2}}, nil},
		{"09-inline-confirmation.json", []want{{caseID: "review_confirm_s5t6u7v8", reviewType: "confirmation", defaultAction: "abort"}}, nil},
		{"10-inline-escalation.json", []want{{caseID: "review_escalate_h2i3j4k5", reviewType: "escalation", defaultAction: "abort"}}, nil},
		{"11-hybrid-approval.json", []want{{caseID: "review_deploy_m3n4o5p6", reviewType: "approval", defaultAction: "reject"}}, nil},
		{"12-embedded-selection.json", []want{{"review_select_q7r8s9t0", "selection", "skip", transport.StatusCompleted, "select", "", "Alex Mueller", 1}}, nil},
		{"14-inline-proof-of-human.json", []want{{"review_newsletter_c1d2e3f4", "confirmation", "abort", transport.StatusCompleted, "confirm", "", "Alex Mueller", 1}}, nil},
		{"15-step-up-verification.json", []want{{"review_support_u7v8w9x0", "confirmation", "abort", transport.StatusCompleted, "confirm", "", "Alex Mueller", 1}}, nil},
		{"16-browser-verified-approval.json", []want{{"review_wire_a9b8c7d6", "approval", "reject", transport.StatusCompleted, "approve", "", "Torsten Heissler", 1}}, nil},
	}
	for _, tt := range tests {
		t.Run(strings.TrimSuffix(tt.file, ".json"), func(t *testing.T) {
			rs := rounds(loadFlow(t, tt.file))
			if len(rs) != len(tt.wants) {
				t.Fatalf("flow has %d rounds, want %d", len(rs), len(tt.wants))
			}
			for i, r := range rs {
				w := tt.wants[i]
				it, err := hitl.Detect(response202(t, r.requestURL, r.accepted), nil)
				if err != nil || it == nil {
					t.Fatalf("round %d: Detect = %v, %v; want an interrupt", i, it, err)
				}
				got := want{caseID: it.Case.CaseID, reviewType: string(it.Case.Type), defaultAction: it.Case.DefaultAction}
				if it.Message == "" || it.ReviewURL() == "" || len(it.Warnings) != 0 {
					t.Errorf("round %d: message %q, review URL set %v, warnings %q", i, it.Message, it.ReviewURL() != "", it.Warnings)
				}
				if len(r.polls) > 0 {
					synctest.Test(t, func(t *testing.T) {
						s := &script{replies: r.polls}
						res, err := newClient(t, s, transport.WithAuthorization(authSource(r.auth))).Wait(t.Context(), it, nil)
						if err != nil {
							t.Fatalf("round %d: Wait: %v", i, err)
						}
						reqs, _ := s.requests()
						got.polls = len(reqs)
						got.status, got.action, got.nextCaseID = res.Status, res.Action, res.NextCaseID
						if tt.check != nil && i == len(rs)-1 {
							tt.check(t, res)
						}
						if res.RespondedBy != nil {
							got.respondedBy = res.RespondedBy.Name
						}
						for _, req := range reqs {
							if a := req.Header.Get("Authorization"); a != r.auth {
								t.Errorf("poll sent Authorization %q, want the agent's credential", a)
							}
						}
					})
				}
				if diff := cmp.Diff(w, got, cmp.AllowUnexported(want{})); diff != "" {
					t.Errorf("round %d (-want +got):\n%s", i, diff)
				}
			}
		})
	}
}

// authSource returns an authorization source yielding v.
func authSource(v string) func(context.Context) (string, error) {
	return func(context.Context) (string, error) { return v, nil }
}
