// Package b64 decodes base64 in its one canonical spelling, for values whose spelling is
// compared or replayed: MACs, signatures, sealed state.
package b64

import (
	"encoding/base64"
	"errors"
	"strings"
)

// ErrNotCanonical: the value is not the canonical spelling of any bytes.
var ErrNotCanonical = errors.New("base64: not the canonical spelling")

// Canonical decodes s, unpadded, in enc's alphabet, and refuses every spelling but the
// canonical one: the bits the last character leaves unused must be zero (Strict), and no
// carriage return or line feed may appear, which encoding/base64 otherwise skips wherever
// they are. So one byte string has one spelling, and a replay cache or a comparison keyed on
// the text cannot be passed by respelling it.
func Canonical(enc *base64.Encoding, s string) ([]byte, error) {
	if strings.ContainsAny(s, "\r\n") {
		return nil, ErrNotCanonical
	}
	b, err := enc.WithPadding(base64.NoPadding).Strict().DecodeString(s)
	if err != nil {
		return nil, ErrNotCanonical
	}
	return b, nil
}
