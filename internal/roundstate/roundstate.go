// Package roundstate seals and opens the requestState the chain puts in
// the input_required results of multi round-trip calls (protocol
// 2026-07-28): an HMAC-SHA256-authenticated record that ties the rounds of
// one call together and carries a user's confirmation, bound to the
// caller, the tool and the arguments, single use, for TTL.
package roundstate

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"strings"
	"sync"
	"time"
)

const (
	// TTL is how long a round's state is good for: the user's time to
	// answer a confirmation, and the longest pause between rounds.
	TTL = 10 * time.Minute
	// ConfirmKey names the chain's own question in inputRequests and
	// inputResponses.
	ConfirmKey = "mcpwrap_confirm"
	// Prefix starts every state the chain seals.
	Prefix = "mcpwrap1."
	// maxStateBytes bounds the state the chain decodes: a longer one is not
	// its own.
	maxStateBytes = 4 << 20
	// maxUsedNonces bounds the memory of confirmation states already used.
	maxUsedNonces = 10_000
)

// What a state says of the confirmation its tool needs.
const (
	ConfirmNone  uint8 = iota // the tool needs none, or it was not asked yet
	ConfirmAsked              // the user was asked; the next round carries the answer
	ConfirmGiven              // the user accepted on an earlier round
)

// Why a round's state was not used, for the log line's authz reason when
// the user is asked again.
const (
	Forged   = "state_invalid"  // not sealed with this server's key, or damaged
	Expired  = "state_expired"  // older than TTL
	Mismatch = "state_mismatch" // sealed for another caller, tool or arguments
	Replayed = "state_replayed" // a confirmation state used before
)

// States seals and opens the chain's requestStates. One is shared by the
// chains of one evaluation of the options; safe for concurrent use.
type States struct {
	key []byte
	now func() time.Time

	mu   sync.Mutex
	used map[string]int64 // nonce → expiry (UnixNano) of confirmation states used
}

// New is a States sealing with key, or with a random one when key is
// empty.
func New(key []byte) *States {
	if len(key) == 0 {
		key = make([]byte, 32)
		_, _ = rand.Read(key) // never fails (crypto/rand)
	}
	return &States{key: key, now: time.Now, used: map[string]int64{}}
}

// Sealed is what a requestState carries, authenticated.
type Sealed struct {
	Chain   string `json:"i"`           // the call id of the call's first round
	Round   int    `json:"r"`           // the round that issued the state, from 1
	Tool    string `json:"t"`           // the tool's name
	Args    string `json:"a"`           // hash of the canonical arguments
	Subject string `json:"s"`           // hash of the caller's subject
	Expires int64  `json:"e"`           // Unix milliseconds
	Nonce   string `json:"n"`           // random, single use for a confirmation
	Confirm uint8  `json:"c,omitempty"` // ConfirmNone, ConfirmAsked, ConfirmGiven
	Inner   string `json:"h,omitempty"` // the handler's own requestState
}

// Open checks a sealed state for a call of tool with the arguments and
// caller of those hashes (ArgumentsHash, SubjectHash); why is "" when it
// is good, and st holds what it could read either way.
func (s *States) Open(raw, tool, args, subject string) (st Sealed, why string) {
	st, ok := s.verify(raw)
	if !ok {
		return st, Forged
	}
	now := s.now()
	switch {
	case now.UnixMilli() > st.Expires:
		return st, Expired
	case st.Tool != tool || st.Args != args || st.Subject != subject:
		return st, Mismatch
	}
	if st.Confirm != ConfirmNone && !s.use(st.Nonce, st.Expires, now) {
		return st, Replayed
	}
	return st, ""
}

// verify decodes the state raw and checks its signature; ok is false for
// a state this States did not seal.
func (s *States) verify(raw string) (st Sealed, ok bool) {
	if len(raw) > maxStateBytes {
		return st, false
	}
	body, sig, ok := strings.Cut(raw[len(Prefix):], ".")
	if !ok {
		return st, false
	}
	payload, err1 := base64.RawURLEncoding.DecodeString(body)
	mac, err2 := base64.RawURLEncoding.DecodeString(sig)
	if err1 != nil || err2 != nil || json.Unmarshal(payload, &st) != nil {
		return Sealed{}, false
	}
	return st, hmac.Equal(mac, s.mac(payload))
}

// use records a confirmation state's nonce as used; false when it was.
// The memory is bounded: past maxUsedNonces, expired nonces are dropped,
// then any (a replay of a dropped one within its ten minutes goes
// unnoticed; it is still bound to its caller, tool and arguments).
func (s *States) use(nonce string, expires int64, now time.Time) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.used[nonce]; ok {
		return false
	}
	if len(s.used) >= maxUsedNonces {
		ms := now.UnixMilli()
		for n, e := range s.used {
			if e < ms {
				delete(s.used, n)
			}
		}
		for n := range s.used {
			if len(s.used) < maxUsedNonces {
				break
			}
			delete(s.used, n)
		}
	}
	s.used[nonce] = expires
	return true
}

// Seal returns st as a requestState: its JSON and an HMAC-SHA256 of it, in
// base64url, after Prefix; it sets the expiry and a fresh nonce.
func (s *States) Seal(st Sealed) string {
	st.Expires = s.now().Add(TTL).UnixMilli()
	var n [12]byte
	_, _ = rand.Read(n[:])
	st.Nonce = base64.RawURLEncoding.EncodeToString(n[:])
	payload, _ := json.Marshal(st) // strings and integers: never fails
	return Prefix + base64.RawURLEncoding.EncodeToString(payload) + "." +
		base64.RawURLEncoding.EncodeToString(s.mac(payload))
}

func (s *States) mac(payload []byte) []byte {
	m := hmac.New(sha256.New, s.key)
	_, _ = m.Write(payload)
	return m.Sum(nil)
}

// ArgumentsHash is the hash of a call's arguments in a canonical form
// (object keys sorted, numbers as written), so that a state is good only
// for the arguments it was issued for: raw when the call has them as
// JSON, else args.
func ArgumentsHash(raw []byte, args any) string {
	v := args
	if len(raw) > 0 {
		d := json.NewDecoder(bytes.NewReader(raw))
		d.UseNumber()
		if d.Decode(&v) != nil {
			v = string(raw)
		}
	}
	b, err := json.Marshal(v)
	if err != nil {
		b = nil
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:16])
}

// SubjectHash names a caller in a state without its subject.
func SubjectHash(subject string) string {
	sum := sha256.Sum256([]byte(subject))
	return hex.EncodeToString(sum[:16])
}

// SetClock makes s read the time from now, for a test of expiry; call it
// before s is used.
func (s *States) SetClock(now func() time.Time) { s.now = now }
