package a2a_test

import (
	"errors"
	"net/http"
	"testing"
)

// failingClient is an HTTP client whose every request fails the test: for refusals that
// must be made without a request.
func failingClient(t *testing.T) *http.Client {
	return &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		t.Errorf("unexpected request %s %s", r.Method, r.URL.Path)
		return nil, errors.New("no requests expected")
	})}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
