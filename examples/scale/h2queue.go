//go:build go1.26

package main

import "net/http"

// queueHTTP2 makes tr queue requests past an HTTP/2 server's stream limit rather than open
// another connection (Go 1.26's StrictMaxConcurrentRequests).
func queueHTTP2(tr *http.Transport) {
	tr.HTTP2 = &http.HTTP2Config{StrictMaxConcurrentRequests: true}
}
