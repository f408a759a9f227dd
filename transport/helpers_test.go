package transport_test

import (
	"context"
	"errors"
	"testing"
	"time"
)

var errTimeout = errors.New("test deadline")

func contextWithTimeout(t *testing.T, d time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeoutCause(t.Context(), d, errTimeout)
}
