package hi_test

import (
	"fmt"

	"github.com/hitlkit/hitlkit/hi"
)

// A model's message with mistakes comes back with every problem, ready to send to the model;
// the corrected one resolves by majority.
func Example() {
	_, err := hi.Parse([]byte(`{"interactionId":"inv-4471","resolutionPolicy":"majority","timestamp":"2026-11-22T10:00:00Z",
	  "agentInstanceId":"agent-7","type":"approval","urgency":"blocking","userActions":["approve","reject"],
	  "agentOutput":{"summary":"Invoice 4471 exceeds the threshold.","confidence":1.4},
	  "participants":[{"id":"ana","role":"finance"},{"id":"ana","role":"compliance"}]}`))
	if pe, ok := err.(*hi.ParseError); ok {
		fmt.Print(pe.ForModel())
	}

	it, err := hi.Parse([]byte(`{"interactionId":"inv-4471","resolutionPolicy":"majority","timestamp":"2026-11-22T10:00:00Z",
	  "agentInstanceId":"agent-7","type":"approval","urgency":"blocking","userActions":["approve","reject"],
	  "agentOutput":{"summary":"Invoice 4471 exceeds the threshold.","confidence":0.62},
	  "participants":[{"id":"ana","role":"finance"},{"id":"ben","role":"compliance"},{"id":"cy","role":"cfo"}]}`))
	if err != nil {
		panic(err)
	}
	_, _ = it.Record(hi.Feedback{ParticipantID: "ana", Action: "reject", Reason: "no PO"})
	tally, _ := it.Record(hi.Feedback{ParticipantID: "cy", Action: "reject"})
	fmt.Println(tally.Explanation)
	fmt.Println(it.Status)
	// Output:
	// Your HumanInteraction message was rejected. Fix these problems and send the whole message again:
	// - $.agentOutput.confidence: must be from 0 to 1
	// - $.participants[1].id: duplicate participant "ana"
	// majority: reject resolved by cy; 2 of 3 participants responded (reject 2)
	// resolved
}
