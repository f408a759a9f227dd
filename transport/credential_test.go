package transport_test

import (
	"context"
	"testing"

	"github.com/hitlkit/hitlkit/transport"
)

// TestCredentials: StaticToken gives the header value; an empty token is an error, never a
// request without credentials.
func TestCredentials(t *testing.T) {
	ctx := context.Background()
	if v, err := transport.StaticToken("sk-1")(ctx); v != "Bearer sk-1" || err != nil {
		t.Errorf("StaticToken = %q, %v", v, err)
	}
	if _, err := transport.StaticToken("")(ctx); err == nil {
		t.Error("StaticToken(\"\") gave no error")
	}
}
