package hi_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hitlkit/hitlkit/hi"
)

// withMember adds "name": value to the spec's example message, after its opening brace.
func withMember(name, value string) string {
	return strings.Replace(specExample, "{", "{\n"+fmt.Sprintf("%q: %s,", name, value), 1)
}

// TestKeysThatNormaliseAlike: a model that writes one field under two keys that normalise
// alike gets a ParseError naming both, the same every time, never a random winner.
func TestKeysThatNormaliseAlike(t *testing.T) {
	tests := []struct {
		msg  string
		want hi.Problem
	}{
		{withMember("__participants__", `[{"id":"mallory","role":"approver"}]`),
			hi.Problem{Path: "$", Message: `keys "__participants__" and "participants" name the same field; keep one`}},
		{withMember("resolution_policy", `"first_response"`),
			hi.Problem{Path: "$", Message: `keys "resolutionPolicy" and "resolution_policy" name the same field; keep one`}},
		{strings.Replace(specExample, `"summary": "This`, `"Summary": "x", "summary": "This`, 1),
			hi.Problem{Path: "$.agentOutput", Message: `keys "Summary" and "summary" name the same field; keep one`}},
	}
	for _, tt := range tests {
		t.Run(tt.want.Message, func(t *testing.T) {
			for range 50 {
				_, err := hi.Parse([]byte(tt.msg))
				var pe *hi.ParseError
				if !errors.As(err, &pe) {
					t.Fatalf("Parse = %v, want a ParseError", err)
				}
				if !containsProblem(pe.Problems, tt.want) {
					t.Fatalf("problems %v lack %v", pe.Problems, tt.want)
				}
			}
		})
	}
}

func containsProblem(ps []hi.Problem, want hi.Problem) bool {
	for _, p := range ps {
		if p == want {
			return true
		}
	}
	return false
}

// TestParticipantIdentity: participant ids that are one person once normalised (case,
// full-width forms), or that a person could not tell apart (look-alike letters of other
// scripts, invisible code points), are a ParseError; a person is asked, and votes, once.
func TestParticipantIdentity(t *testing.T) {
	refused := map[string]string{
		"case":             "ANA",
		"full width":       "Ａｎａ",
		"zero width":       "ana\u200b",
		"bidi control":     "\u202eana",
		"cyrillic a":       "\u0430na",
		"greek alpha":      "\u03b1na",
		"soft hyphen":      "a\u00adna",
		"digit look-alike": "an0",
	}
	for name, second := range refused {
		t.Run(name, func(t *testing.T) {
			msg := strings.Replace(specExample, `{ "id": "user-222"`, `{ "id": "ana", "role": "x" }, { "id": "`+strings.ReplaceAll(second, `"`, `\"`)+`"`, 1)
			if second == "an0" {
				msg = strings.Replace(specExample, `{ "id": "user-222"`, `{ "id": "ano", "role": "x" }, { "id": "an0"`, 1)
			}
			_, err := hi.Parse([]byte(msg))
			var pe *hi.ParseError
			if !errors.As(err, &pe) || len(pe.Problems) != 1 || pe.Problems[0].Path != "$.participants[2].id" {
				t.Fatalf("Parse = %v, want one problem at $.participants[2].id", err)
			}
		})
	}
	// One vote per person, whatever the spelling of the response.
	it := message(3, hi.Majority)
	for _, who := range []string{"p1", "P1", "Ｐ1"} {
		if _, err := it.Record(hi.Feedback{ParticipantID: who, Action: "approve"}); err != nil {
			t.Fatalf("Record(%q) = %v", who, err)
		}
	}
	tally := hi.Evaluate(it)
	if diff := cmp.Diff(map[string]string{"p1": "approve"}, tally.Votes); diff != "" || tally.Resolved {
		t.Errorf("votes (-want +got):\n%s resolved %v", diff, tally.Resolved)
	}
}

// TestFanOutParticipantLimit: a model's message naming more participants than the limit is
// refused before anyone is asked; the limit can be raised.
func TestFanOutParticipantLimit(t *testing.T) {
	it := message(101, hi.Majority)
	asked := 0
	ask := func(_ context.Context, _ *hi.Interaction, p hi.Participant) (hi.Feedback, error) {
		asked++
		return hi.Feedback{Action: "approve"}, nil
	}
	if _, _, err := hi.FanOut(t.Context(), it, ask, nil); !errors.Is(err, hi.ErrTooManyParticipants) || asked != 0 {
		t.Fatalf("FanOut = %v after %d asks, want ErrTooManyParticipants before any", err, asked)
	}
	askSafe := func(_ context.Context, _ *hi.Interaction, p hi.Participant) (hi.Feedback, error) {
		return hi.Feedback{Action: "approve"}, nil
	}
	r, tally, err := hi.FanOut(t.Context(), it, askSafe, &hi.FanOutOptions{MaxParticipants: 200})
	if err != nil || r.Action != "approve" || !tally.Resolved {
		t.Fatalf("FanOut with the limit raised = %v, %+v, %v", r, tally, err)
	}
}

// BenchmarkFanOut measures a fan-out per participant count: with incremental tallying the
// cost per participant stays flat as the count grows.
func BenchmarkFanOut(b *testing.B) {
	for _, n := range []int{10, 100, 1000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			ask := func(ctx context.Context, _ *hi.Interaction, p hi.Participant) (hi.Feedback, error) {
				if p.ID == "p1" {
					return hi.Feedback{Action: "reject"}, nil // no early majority: every answer counts
				}
				return hi.Feedback{Action: "approve"}, nil
			}
			for b.Loop() {
				it := message(n, hi.AllRequired)
				if _, _, err := hi.FanOut(b.Context(), it, ask, &hi.FanOutOptions{MaxParticipants: n}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/participant")
		})
	}
}

// FuzzParticipantKey: comparing ids is symmetric and normalising twice changes nothing;
// parsing a message with two fuzzed ids is deterministic and never panics.
func FuzzParticipantKey(f *testing.F) {
	for _, s := range [][2]string{{"ana", "ANA"}, {"Ａｎａ", "ana"}, {"ana\u200b", "ana"}, {"\u0430na", "ana"}, {"ß", "SS"}, {"ﬁ", "fi"}, {"", "x"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		if hi.SameParticipant(a, b) != hi.SameParticipant(b, a) {
			t.Fatalf("SameParticipant(%q, %q) is not symmetric", a, b)
		}
		ja, jb := jsonString(a), jsonString(b)
		msg := strings.Replace(specExample, `{ "id": "user-222"`, `{ "id": `+ja+`, "role": "x" }, { "id": `+jb, 1)
		_, err1 := hi.Parse([]byte(msg))
		_, err2 := hi.Parse([]byte(msg))
		if fmt.Sprint(err1) != fmt.Sprint(err2) {
			t.Fatalf("two parses disagree: %v / %v", err1, err2)
		}
		if hi.SameParticipant(a, b) && a != "" && err1 == nil {
			t.Fatalf("ids %q and %q are one participant, yet the message parsed", a, b)
		}
	})
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
