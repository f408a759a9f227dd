// Package clientopt holds the error of a refused option, which transport and the packages
// below it share.
package clientopt

import (
	"errors"
	"fmt"
)

// ErrInvalid is transport.ErrInvalidOption: NewClient refused an option.
var ErrInvalid = errors.New("invalid option")

// Refused is the error of client's NewClient refusing option (its package-qualified name,
// "transport.WithMaxBody") for problem. It never holds the option's value.
func Refused(client, option, problem string) error {
	return fmt.Errorf("%s: NewClient: %s: %s: %w", client, option, problem, ErrInvalid)
}
