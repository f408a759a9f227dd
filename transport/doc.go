// Package transport is the waiting machinery shared by every protocol in hitlkit: the [Result]
// every wait yields, and the poll loop ([Poll]) that honours server pacing (Retry-After, ETag and
// 304), backs off on transient failures without ever ending a long wait, and ends on permanent
// ones with a typed error.
//
// It knows nothing of what a response means: the protocol packages (hitl, and later a2a and
// hxp) pass a decoder that turns one response body into "keep waiting" or a terminal value.
//
// # Cancellation
//
// Every call takes a context first. When it ends, waits return context.Cause(ctx) promptly and
// leave no goroutine behind. Give the context a deadline with a cause
// (context.WithDeadlineCause) to tell a case's expiry from the caller's own cancel.
package transport
