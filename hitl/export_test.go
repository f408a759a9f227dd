package hitl

import "github.com/hitlkit/hitlkit/transport"

// OutcomeForTest exposes outcomeOf to the package's external tests and benchmarks.
func OutcomeForTest(c *Case, event string, body []byte) *transport.Result {
	return outcomeOf(c, event, body)
}

// PutRawForTest stores b under key as it is, as another version or a damaged disk might.
func (s *MemoryStore) PutRawForTest(key StoreKey, b []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = make(map[StoreKey][]byte)
	}
	s.m[key] = b
}

// The limits and wire names the tests check, not exported.
const (
	DefaultReadTimeout = defaultReadTimeout
	MaxConditionDepth  = maxConditionDepth
	MaxFieldOptions    = maxFieldOptions
	MaxFormFields      = maxFormFields
	MaxPatternLength   = maxPatternLength
	SignatureHeader    = signatureHeader
)

// Parsers the tests read, not exported.
var (
	ParseDiscovery = parseDiscovery
	Suggestions    = suggestionsOf
)
