package transport

import (
	"context"
	"errors"
)

// Credential gives the value of the Authorization header for one request ("Bearer sk-…",
// "Basic …"). Every client in this module takes one ([WithAuthorization]), calls it once per
// request — so it may rotate tokens — and sends it only to the origin it belongs to. It must
// be safe for concurrent use. An empty value sends no header; an error fails the request
// with it (never with the value). For schemes that sign the request itself, see the
// per-request hooks (a2a.WithAuthorize).
type Credential func(ctx context.Context) (string, error)

// errEmptyToken: StaticToken was given no token.
var errEmptyToken = errors.New("credential: empty token")

// StaticToken is the credential of a fixed bearer token: "Bearer " + token. An empty token
// makes every request fail rather than go out without credentials.
func StaticToken(token string) Credential {
	return func(context.Context) (string, error) {
		if token == "" {
			return "", errEmptyToken
		}
		return "Bearer " + token, nil
	}
}
