// Package clientopt holds what the options of every client record. [transport.Option] is a
// function of *Settings; the package that builds a client from them (internal/clientcfg)
// imports transport, so the record lives apart from both.
package clientopt

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"
)

// Settings is what a client's options set, before NewClient checks and completes it. A zero
// field means "not set": NewClient applies its default.
type Settings struct {
	// Client names the client being configured ("hitl", "a2a", "hxp", "hi"), for errors.
	Client string
	// Own is that client's own settings (its *Client), which its own options type-assert:
	// an option of another client finds another type there and refuses.
	Own any
	// Shared is a *clientcfg.Config built by another client, whose HTTP clients, logger,
	// address rules and poll bound this client reuses (a hitl client's A2A waits).
	Shared any

	HTTP             *http.Client
	Logger           *slog.Logger
	Credential       func(context.Context) (string, error)
	MaxBody          int64
	MaxPollsInFlight int
	PollInterval     time.Duration
	RequestTimeout   time.Duration
	// AllowPrivateAddresses admits private and loopback addresses, and plain http on
	// localhost (transport.WithAllowPrivateAddresses).
	AllowPrivateAddresses bool
}

// ErrInvalid is transport.ErrInvalidOption: NewClient refused an option.
var ErrInvalid = errors.New("invalid option")

// Refused is the error of client's NewClient refusing option (its package-qualified name,
// "transport.WithMaxBody") for problem. It never holds the option's value.
func Refused(client, option, problem string) error {
	return fmt.Errorf("%s: NewClient: %s: %s: %w", client, option, problem, ErrInvalid)
}
