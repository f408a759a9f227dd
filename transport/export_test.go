package transport

// SlotsOf gives the tests the slots of rawURL's origin.
func SlotsOf(s *Slots, rawURL string) chan struct{} { return s.of(rawURL) }

// VerifyForTest reports whether sig is "sha256=" and the hex HMAC-SHA256 of body.
func VerifyForTest(secret, body []byte, sig string) bool {
	return verifyHMAC(secret, body, sig, "sha256=", nil)
}
