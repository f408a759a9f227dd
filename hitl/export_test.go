package hitl

// OutcomeForTest exposes outcomeOf to the package's external tests and benchmarks.
func OutcomeForTest(c *Case, event string, body []byte) *Result { return outcomeOf(c, event, body) }
