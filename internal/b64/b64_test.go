package b64

import (
	"bytes"
	"encoding/base64"
	"testing"
)

// TestCanonical: each byte string has one spelling per alphabet; a respelling — stray bits in
// the last character, CR or LF anywhere, padding — is refused.
func TestCanonical(t *testing.T) {
	mac := bytes.Repeat([]byte{0xa7}, 32)
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		good := enc.WithPadding(base64.NoPadding).EncodeToString(mac)
		if got, err := Canonical(enc, good); err != nil || !bytes.Equal(got, mac) {
			t.Errorf("canonical %q = %x, %v", good, got, err)
		}
		last := good[len(good)-1]
		stray := good[:len(good)-1] + string(last+1) // the same bytes, an unused bit set
		for _, bad := range []string{stray, good[:5] + "\r" + good[5:], good[:5] + "\n" + good[5:], good + "\r\n", good + "=", ""} {
			if b, err := Canonical(enc, bad); err == nil && bytes.Equal(b, mac) {
				t.Errorf("respelling %q decoded to the MAC", bad)
			}
		}
	}
}
