package hitlmcpgo_test

import (
	"strings"
	"testing"

	"github.com/hitlkit/hitlkit/hitl/hitlmcpgo"
)

// Validate names every field a Tool lacks, so a bad configuration is refused at start.
func TestToolValidate(t *testing.T) {
	err := (&hitlmcpgo.Tool{}).Validate()
	for _, want := range []string{"hitlmcpgo:", "Client is nil", "Secret has 0 bytes, needs 32", "Call is nil", "Result is nil"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Validate() = %v, want it to say %q", err, want)
		}
	}
}
