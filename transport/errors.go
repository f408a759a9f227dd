package transport

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/hitlkit/hitlkit/internal/httpx"
)

// Sentinels for the categories a caller branches on; match them with errors.Is.
var (
	// ErrUnauthorized: the server answered 401 or 403; the credentials are missing, wrong or
	// not enough. StatusError's StatusCode tells which.
	ErrUnauthorized = errors.New("unauthorized")
	// ErrNotFound: the server answered 404 or 410; the case is unknown or was deleted.
	ErrNotFound = errors.New("not found")
	// ErrUnexpectedStatus: the server answered with a status the protocol does not define here.
	ErrUnexpectedStatus = errors.New("unexpected status")
	// ErrBodyTooLarge: a response body exceeded the configured limit.
	ErrBodyTooLarge = httpx.ErrBodyTooLarge
)

// StatusError is a response that ended a wait. Body holds at most the first 512 bytes of the
// response body, as evidence; URL is redacted (no query, no userinfo).
type StatusError struct {
	StatusCode int
	URL        string
	Body       []byte
}

// Error names the redacted URL and the status.
func (e *StatusError) Error() string {
	return fmt.Sprintf("%s answered %d %s", e.URL, e.StatusCode, http.StatusText(e.StatusCode))
}

// Is matches the sentinel for the status's category.
func (e *StatusError) Is(target error) bool {
	switch e.StatusCode {
	case http.StatusUnauthorized, http.StatusForbidden:
		return target == ErrUnauthorized
	case http.StatusNotFound, http.StatusGone:
		return target == ErrNotFound
	}
	return target == ErrUnexpectedStatus
}

// ErrMismatch: an answer, receipt, task or notification concerns another case, request,
// task or interaction than the one asked about. It is never taken as the outcome.
var ErrMismatch = errors.New("answer for another id")

// MismatchError names both ids of an answer that concerns another object than the one asked
// about (errors.Is(err, ErrMismatch)). The ids are clipped to 128 bytes each.
type MismatchError struct {
	// Object is what the ids name: "case", "request", "receipt", "task", "interaction".
	Object string
	// Want is the id asked about; Got the id the answer carried.
	Want, Got string
}

func (e *MismatchError) Error() string {
	return fmt.Sprintf("answer for %s %q, not %q", e.Object, clipID(e.Got), clipID(e.Want))
}

// Is matches ErrMismatch.
func (e *MismatchError) Is(target error) bool { return target == ErrMismatch }

func clipID(s string) string {
	if len(s) > 128 {
		return s[:128] + "…"
	}
	return s
}

// ErrPrivateAddress: a connection was refused because the host resolves to an address no
// public service has (loopback, private, link-local, unspecified, or such an address mapped
// into IPv6). It ends a wait at once: retrying would not change where the name points.
var ErrPrivateAddress = errors.New("host resolves to a private address")
