// Package hxphash computes an HXP receipt's evidence hash (HXP §4.2), for the agent that
// verifies a receipt (hxp.Receipt.VerifyEvidence) and the fake server that issues one
// (hxptest).
package hxphash

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
)

// Sum is the evidence hash of a receipt. With reference false it is §4.2 as written:
// SHA-256(request_id + result + completed_at + server_secret), the result as its text (a
// string's value, otherwise its compact JSON). With reference true it is what the reference
// server computes: SHA-256(request_id + ":" + JSON(result) + ":" + completed_at + ":" +
// server_secret).
func Sum(id string, result json.RawMessage, completedAt string, secret []byte, reference bool) []byte {
	var compact bytes.Buffer
	if json.Compact(&compact, result) != nil {
		compact.Reset()
		compact.Write(result)
	}
	h := sha256.New()
	if reference {
		fmt.Fprintf(h, "%s:%s:%s:", id, compact.Bytes(), completedAt)
	} else {
		text := compact.String()
		var s string
		if json.Unmarshal(result, &s) == nil {
			text = s
		}
		fmt.Fprintf(h, "%s%s%s", id, text, completedAt)
	}
	h.Write(secret)
	return h.Sum(nil)
}
