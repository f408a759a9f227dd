package hxptest_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/hitlkit/hitlkit/hxp"
	"github.com/hitlkit/hitlkit/hxp/hxptest"
	"github.com/hitlkit/hitlkit/transport"
)

// TestResolveRefusesResult: on every profile, Resolve refuses a result the request's type
// cannot have — an APPROVE's {"approved":true}, a DECIDE's answer outside its options, a
// PROVIDE's nil (and, on ProfileSpec, a PROVIDE number's word) — with an error matching
// hxp.ErrReceiptMismatch that says what that type's result must be, and records nothing: the
// request stays pending, and a fitting result then resolves it.
func TestResolveRefusesResult(t *testing.T) {
	for _, profile := range hxptest.Profiles() {
		t.Run(profile.String(), func(t *testing.T) {
			s := hxptest.NewServer(t, hxptest.WithProfile(profile))
			c, err := hxp.NewClient(s.URL, transport.WithHTTPClient(s.Client()), transport.WithAllowPrivateAddresses(),
				transport.WithAuthorization(transport.StaticToken(hxptest.DefaultAgentKey)))
			if err != nil {
				t.Fatal(err)
			}
			tests := []struct {
				name     string
				req      *hxp.Request
				bad      any
				want     []string // in the error
				good     any
				specOnly bool
			}{
				{"approve", &hxp.Request{Approve: &hxp.Approve{Item: "Deploy", Details: json.RawMessage(`{}`)}},
					map[string]bool{"approved": true}, []string{`"approved" or "rejected"`, "hxp.Approved"}, hxp.Approved, false},
				{"decide", &hxp.Request{Decide: &hxp.Decide{Question: "Ship?", Options: []string{"Ship", "Hold"}}},
					"Maybe", []string{"one of its options", `"Ship", "Hold"`}, "Hold", false},
				{"provide nil", &hxp.Request{Provide: &hxp.Provide{Prompt: "Name?", InputType: hxp.InputText}},
					nil, []string{"PROVIDE", "not nil"}, "Ana", false},
				{"provide number", &hxp.Request{Provide: &hxp.Provide{Prompt: "How many?", InputType: hxp.InputNumber}},
					"many", []string{"PROVIDE", "number"}, 3, true},
			}
			for _, tt := range tests {
				if tt.specOnly && profile != hxptest.ProfileSpec {
					continue
				}
				cr, err := c.Create(t.Context(), tt.req)
				if err != nil {
					t.Fatal(err)
				}
				_, err = s.Resolve(cr.RequestID, tt.bad, "", hxptest.HumanID)
				var mm *hxp.ReceiptMismatchError
				if !errors.Is(err, hxp.ErrReceiptMismatch) || !errors.As(err, &mm) {
					t.Errorf("%s: Resolve(%v) = %v, want a refusal matching hxp.ErrReceiptMismatch", tt.name, tt.bad, err)
					continue
				}
				for _, w := range tt.want {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("%s: Resolve(%v) = %v, want it to say %s", tt.name, tt.bad, err, w)
					}
				}
				if st, err := c.Get(t.Context(), cr.RequestID); err != nil || st.Status != "pending" || st.Receipt != nil {
					t.Errorf("%s: after the refusal: %+v, %v; want it pending", tt.name, st, err)
				}
				if _, err := s.Resolve(cr.RequestID, tt.good, "", hxptest.HumanID); err != nil {
					t.Errorf("%s: Resolve(%v) after the refusal: %v", tt.name, tt.good, err)
				}
			}
		})
	}
}
