package transport_test

import (
	"context"
	"errors"
	"testing"

	"github.com/hitlkit/hitlkit/transport"
)

// TestCredentials: the helpers give the header value; an empty token or a failing source is
// an error, never a request without credentials or with the wrong ones.
func TestCredentials(t *testing.T) {
	ctx := context.Background()
	if v, err := transport.StaticToken("sk-1")(ctx); v != "Bearer sk-1" || err != nil {
		t.Errorf("StaticToken = %q, %v", v, err)
	}
	if _, err := transport.StaticToken("")(ctx); err == nil {
		t.Error("StaticToken(\"\") gave no error")
	}
	n := 0
	rotating := transport.BearerToken(func(context.Context) (string, error) { n++; return "t" + string(rune('0'+n)), nil })
	a, _ := rotating(ctx)
	b, _ := rotating(ctx)
	if a != "Bearer t1" || b != "Bearer t2" {
		t.Errorf("BearerToken = %q, %q; want a fresh token per call", a, b)
	}
	boom := errors.New("vault unreachable")
	if _, err := transport.BearerToken(func(context.Context) (string, error) { return "", boom })(ctx); !errors.Is(err, boom) {
		t.Errorf("BearerToken error = %v", err)
	}
}
