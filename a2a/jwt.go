package a2a

import (
	"context"
	"crypto"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/hitlkit/hitlkit/internal/b64"
	"github.com/hitlkit/hitlkit/internal/httpx"
)

// defaultJWTMaxAge is how old a signed push notification may be (the A2A 0.3 push
// notification topic's receivers reject tokens older than five minutes).
const defaultJWTMaxAge = 5 * time.Minute

// maxRSABits bounds the modulus of a sender's key. Verifying costs the square of the
// modulus' length: a 131,072-bit key (16 KiB, well within a JWKS document) took 5 s of CPU per
// notification, an 8,192-bit one takes milliseconds.
const maxRSABits = 8192

// JWTVerifier checks push notifications signed as the A2A 0.3 push-notification topic
// describes: "Authorization: Bearer <JWT>", RS256, a kid naming the sender's key in its JWKS,
// and claims iat and request_body_sha256 (hex SHA-256 of the body). A body changed in
// transit, a token older than MaxAge, or one signed by a key the sender does not publish is
// refused. Safe for concurrent use.
type JWTVerifier struct {
	// Key returns the sender's public key for kid. refresh asks for the key set to be
	// fetched again: a kid not found is looked up once more before the notification is
	// refused. [JWKSKeys] fetches and caches a JWKS URL.
	Key func(ctx context.Context, kid string, refresh bool) (*rsa.PublicKey, error)
	// MaxAge: 0 means 5 min.
	MaxAge time.Duration
}

// ErrBadSignature: a signed push notification did not verify.
var ErrBadSignature = errors.New("a2a: push notification signature does not verify")

// Verify checks the JWT in an Authorization header against body. A key over 8,192 bits is
// refused before any arithmetic with it.
func (v *JWTVerifier) Verify(ctx context.Context, authorization string, body []byte) error {
	token, ok := strings.CutPrefix(authorization, "Bearer ")
	if !ok {
		return fmt.Errorf("%w: no bearer token", ErrBadSignature)
	}
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return fmt.Errorf("%w: not a JWS compact token", ErrBadSignature)
	}
	var head struct {
		Alg string `json:"alg"`
		Kid string `json:"kid"`
	}
	var claims struct {
		IAT      *json.Number `json:"iat"`
		BodyHash string       `json:"request_body_sha256"`
	}
	if err := decodeSegment(parts[0], &head); err != nil || head.Alg != "RS256" || head.Kid == "" {
		return fmt.Errorf("%w: header is not RS256 with a kid", ErrBadSignature)
	}
	// One signature has one spelling (RFC 7515 §2 base64url without padding, no stray bits
	// in the last character, no CR or LF).
	sig, err := b64.Canonical(base64.RawURLEncoding, parts[2])
	if err != nil {
		return fmt.Errorf("%w: signature encoding", ErrBadSignature)
	}
	key, err := v.Key(ctx, head.Kid, false)
	if err != nil || key == nil {
		key, err = v.Key(ctx, head.Kid, true)
	}
	if err != nil || key == nil || key.N == nil {
		return fmt.Errorf("%w: unknown key", ErrBadSignature)
	}
	if key.N.BitLen() > maxRSABits {
		return fmt.Errorf("%w: the sender's key has %d bits, over %d", ErrBadSignature, key.N.BitLen(), maxRSABits)
	}
	digest := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	if rsa.VerifyPKCS1v15(key, crypto.SHA256, digest[:], sig) != nil {
		return fmt.Errorf("%w: signature", ErrBadSignature)
	}
	if err := decodeSegment(parts[1], &claims); err != nil || claims.IAT == nil {
		return fmt.Errorf("%w: claims lack iat", ErrBadSignature)
	}
	iat, err := claims.IAT.Float64()
	if err != nil {
		return fmt.Errorf("%w: iat is not a number", ErrBadSignature)
	}
	age := time.Since(time.Unix(int64(iat), 0))
	maxAge := v.MaxAge
	if maxAge <= 0 {
		maxAge = defaultJWTMaxAge
	}
	if age > maxAge || age < -time.Minute {
		return fmt.Errorf("%w: issued %v ago", ErrBadSignature, age.Round(time.Second))
	}
	sum := sha256.Sum256(body)
	if subtle.ConstantTimeCompare([]byte(strings.ToLower(claims.BodyHash)), []byte(hex.EncodeToString(sum[:]))) != 1 {
		return fmt.Errorf("%w: body does not match request_body_sha256", ErrBadSignature)
	}
	return nil
}

func decodeSegment(seg string, v any) error {
	b, err := base64.RawURLEncoding.DecodeString(seg)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.UseNumber()
	return dec.Decode(v)
}

// JWKSKeys returns a JWTVerifier.Key that reads RSA keys from the JWKS document at url
// (RFC 7517), through hc (nil: http.DefaultClient), cached until a refresh is asked for. A key
// whose modulus is over 8,192 bits is left out, as Verify refuses it.
// A refresh is made at most once a minute, so forged kids cannot make it fetch in a loop.
func JWKSKeys(hc *http.Client, url string) func(ctx context.Context, kid string, refresh bool) (*rsa.PublicKey, error) {
	if hc == nil {
		hc = http.DefaultClient
	}
	var (
		mu      sync.Mutex
		keys    map[string]*rsa.PublicKey
		fetched time.Time
	)
	return func(ctx context.Context, kid string, refresh bool) (*rsa.PublicKey, error) {
		mu.Lock()
		defer mu.Unlock()
		if keys == nil || (refresh && time.Since(fetched) >= time.Minute) {
			got, err := fetchJWKS(ctx, hc, url)
			if err != nil {
				return nil, err
			}
			keys, fetched = got, time.Now()
		}
		if k, ok := keys[kid]; ok {
			return k, nil
		}
		return nil, fmt.Errorf("a2a: no key %q in the sender's JWKS", kid)
	}
}

func fetchJWKS(ctx context.Context, hc *http.Client, url string) (map[string]*rsa.PublicKey, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, httpx.StripURL(err)
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("a2a: fetch JWKS: %w", httpx.StripURL(err))
	}
	defer httpx.DrainClose(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("a2a: fetch JWKS: status %d", resp.StatusCode)
	}
	body, err := httpx.ReadLimited(resp.Body, 256<<10)
	if err != nil {
		return nil, fmt.Errorf("a2a: fetch JWKS: %w", err)
	}
	var set struct {
		Keys []struct {
			Kty string `json:"kty"`
			Kid string `json:"kid"`
			N   string `json:"n"`
			E   string `json:"e"`
		} `json:"keys"`
	}
	if err := json.Unmarshal(body, &set); err != nil {
		return nil, fmt.Errorf("a2a: JWKS is not JSON: %w", err)
	}
	out := map[string]*rsa.PublicKey{}
	for _, k := range set.Keys {
		n, errN := base64.RawURLEncoding.DecodeString(k.N)
		e, errE := base64.RawURLEncoding.DecodeString(k.E)
		if k.Kty != "RSA" || k.Kid == "" || errN != nil || errE != nil || len(e) == 0 || len(e) > 4 || len(n) > maxRSABits/8 {
			continue // not a key Verify can use, or one too large to verify with (maxRSABits)
		}
		out[k.Kid] = &rsa.PublicKey{N: new(big.Int).SetBytes(n), E: int(new(big.Int).SetBytes(e).Int64())}
	}
	return out, nil
}
