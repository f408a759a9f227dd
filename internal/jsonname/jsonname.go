// Package jsonname says which object member names encoding/json takes for one struct field.
package jsonname

import (
	"strings"
	"unicode"
)

// Fold is name as encoding/json matches it to a struct field: two names with the same Fold
// fill the same field ("path" and "PATH", "s" and "ſ", "k" and the Kelvin sign). A check
// that reads an object's member names before encoding/json decodes it into a struct compares
// them by Fold, so that no spelling slips past the check into a field.
func Fold(name string) string {
	return strings.Map(func(r rune) rune { return unicode.ToUpper(unicode.ToLower(r)) }, name)
}
