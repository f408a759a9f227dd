//go:build !go1.26

package main

import "net/http"

// queueHTTP2 does nothing before Go 1.26, which has no way to make HTTP/2 requests queue.
func queueHTTP2(*http.Transport) {}
