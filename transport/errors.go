package transport

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/hitlkit/hitlkit/internal/clientopt"
	"github.com/hitlkit/hitlkit/internal/httpx"
)

// The errors a caller branches on; match them with errors.Is.
var (
	// ErrUnauthorized: the server answered 401 or 403; the credentials are missing, wrong or
	// not enough. StatusError's StatusCode tells which.
	ErrUnauthorized = errors.New("unauthorized")
	// ErrNotFound: the server answered 404 or 410; the case is unknown or was deleted.
	ErrNotFound = errors.New("not found")
	// ErrBodyTooLarge: a response body exceeded the configured limit.
	ErrBodyTooLarge = httpx.ErrBodyTooLarge
	// ErrMismatch: an answer, receipt, task or notification concerns another case, request,
	// task or interaction than the one asked about. It is never taken as the outcome. The error
	// that wraps it names both ids, each clipped to 128 bytes.
	ErrMismatch = errors.New("answer for another id")
	// ErrRefusedAddress: a request was refused before it reached the service, by the address
	// rules every client keeps: its URL is not https (or wss), or its host is, or resolves
	// when dialled to, an address no public service has (loopback, private, link-local,
	// unspecified, NAT64 or such an address mapped into IPv6). [WithAllowPrivateAddresses]
	// admits those addresses, and plain http on localhost. The error that wraps it says
	// which rule; it ends a wait at once, since retrying would not change where the URL
	// points.
	ErrRefusedAddress = httpx.ErrRefusedAddress
	// ErrInvalidOption: NewClient refused an option — a bad value, a nil value, or an option
	// of another client. The error that wraps it names the client, the option and what is
	// wrong ("hitl: NewClient: transport.WithMaxBody: size must be positive: invalid
	// option"), never the option's value.
	ErrInvalidOption = clientopt.ErrInvalid
	// ErrNoData: the data of a Result was asked for and it has none (hitl.SelectionOf,
	// hxp.ReceiptOf, …).
	ErrNoData = errors.New("result has no data")
)

// StatusError is a response that ended a wait: 401 and 403 match [ErrUnauthorized], 404 and
// 410 [ErrNotFound], any other status the protocol does not define there neither. Body holds
// at most the first 512 bytes of the response body, as evidence; URL is redacted (no query,
// no userinfo).
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
	return false
}
