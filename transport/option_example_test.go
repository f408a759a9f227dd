package transport_test

import (
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/hitlkit/hitlkit/a2a"
	"github.com/hitlkit/hitlkit/hitl"
	"github.com/hitlkit/hitlkit/transport"
)

// One option list mixes the options every client shares with the client's own; an option
// of another client is refused, never ignored.
func ExampleOption() {
	_, err := hitl.NewClient(
		transport.WithHTTPClient(&http.Client{}),
		transport.WithPollInterval(10*time.Second),
		hitl.WithStrict(),
	)
	fmt.Println(err)

	_, err = hitl.NewClient(transport.WithMaxBody(64<<10), a2a.WithMessageIDs(func() string { return "m-1" }))
	fmt.Println(errors.Is(err, transport.ErrInvalidOption))
	fmt.Println(err)
	// Output:
	// <nil>
	// true
	// hitl: NewClient: a2a.WithMessageIDs: configures a2a clients only: invalid option
}
