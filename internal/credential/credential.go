// Package credential names a credential without keeping it: the loop
// guard's default caller (wrap) and the rate limiter's default key
// (wrap/limit) key state by a client's Authorization header through Hash.
package credential

import (
	"crypto/sha256"
	"encoding/hex"
)

// Hash is a stable, one-way name for a credential: the first 16 bytes of
// its SHA-256, in hex. Replicas agree on it without sharing a secret, and
// it must not change between releases: a shared store (Redis) keys buckets
// by it.
func Hash(cred string) string {
	sum := sha256.Sum256([]byte(cred))
	return hex.EncodeToString(sum[:16])
}
