package hitl

import (
	"context"
	"log/slog"
	"sync"
)

// maxDeviations bounds the deviations a client remembers having logged: a service's
// warnings quote its values, so their number is the service's to choose.
const maxDeviations = 64

// deviations remembers which departures from the spec a client has logged.
type deviations struct {
	mu   sync.Mutex
	seen map[string]bool
}

// deviation logs msg at debug the first time this client meets it: lenient in what is
// accepted, strict in what is reported, without a record per poll or per case.
func (c *Client) deviation(ctx context.Context, msg string) {
	d := &c.deviations
	d.mu.Lock()
	first := !d.seen[msg] && len(d.seen) < maxDeviations
	if first {
		if d.seen == nil {
			d.seen = make(map[string]bool)
		}
		d.seen[msg] = true
	}
	d.mu.Unlock()
	if first {
		c.logger.LogAttrs(ctx, slog.LevelDebug, msg)
	}
}
