package wrap

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"strings"
	"sync"
	"time"

	"github.com/mcpwrap/mcpwrap/internal/call"
	"github.com/mcpwrap/mcpwrap/internal/obs"
	"github.com/mcpwrap/mcpwrap/internal/policy"
	"github.com/mcpwrap/mcpwrap/wrap/authz"
)

// WithStateKey sets the key that authenticates the requestState of
// multi round-trip calls (protocol 2026-07-28): the state the chain puts
// in every input_required result, which ties the rounds of one call
// together (they share one call id in the log line and span) and carries
// a user's confirmation (authz.Confirm) from the round that asked to the
// round that runs the tool. Give every replica of a server the same key
// (at least 32 random bytes, kept secret like a token-signing key), so
// that a round landing on another replica is recognised. Without this
// option each process draws a random key: a round that reaches another
// replica then starts a new call id and, for a tool that needs
// confirmation, is asked again, never allowed. An empty key keeps the
// random one. The key is copied.
func WithStateKey(key []byte) Option {
	return func(c *config) {
		if len(key) > 0 {
			c.states = newStates(bytes.Clone(key))
		}
	}
}

const (
	// stateTTL is how long a round's state is good for: the user's time to
	// answer a confirmation, and the longest pause between rounds.
	stateTTL = 10 * time.Minute
	// confirmKey names the chain's own question in inputRequests and
	// inputResponses.
	confirmKey = "mcpwrap_confirm"
	// statePrefix starts every state the chain seals.
	statePrefix = "mcpwrap1."
	// maxStateBytes bounds the state the chain decodes: a longer one is not
	// its own.
	maxStateBytes = 4 << 20
	// maxUsedNonces bounds the memory of confirmation states already used.
	maxUsedNonces = 10_000
)

// What a state says of the confirmation its tool needs.
const (
	confirmNone  uint8 = iota // the tool needs none, or it was not asked yet
	confirmAsked              // the user was asked; the next round carries the answer
	confirmGiven              // the user accepted on an earlier round
)

// Why a round's state was not used, for the log line's authz reason when
// the user is asked again.
const (
	stateForged   = "state_invalid"  // not sealed with this server's key, or damaged
	stateExpired  = "state_expired"  // older than stateTTL
	stateMismatch = "state_mismatch" // sealed for another caller, tool or arguments
	stateReplayed = "state_replayed" // a confirmation state used before
)

// states seals and opens the chain's requestStates. One is shared by the
// chains of one evaluation of the options; safe for concurrent use.
type states struct {
	key []byte
	now func() time.Time

	mu   sync.Mutex
	used map[string]int64 // nonce → expiry (UnixNano) of confirmation states used
}

func newStates(key []byte) *states {
	if len(key) == 0 {
		key = make([]byte, 32)
		_, _ = rand.Read(key) // never fails (crypto/rand)
	}
	return &states{key: key, now: time.Now, used: map[string]int64{}}
}

// sealed is what a requestState carries, authenticated.
type sealed struct {
	Chain   string `json:"i"`           // the call id of the call's first round
	Round   int    `json:"r"`           // the round that issued the state, from 1
	Tool    string `json:"t"`           // the tool's name
	Args    string `json:"a"`           // hash of the canonical arguments
	Subject string `json:"s"`           // hash of the caller's subject
	Expires int64  `json:"e"`           // Unix milliseconds
	Nonce   string `json:"n"`           // random, single use for a confirmation
	Confirm uint8  `json:"c,omitempty"` // confirmNone, confirmAsked, confirmGiven
	Inner   string `json:"h,omitempty"` // the handler's own requestState
}

// round is what the chain knows of one round of a multi round-trip call:
// the state it carried, when it was the chain's, and what this round did
// with a confirmation. It exists only for rounds that carry a state and
// calls the chain asks.
type round struct {
	// present says the round carried a requestState; ok that it was the
	// chain's, authentic, fresh, unused and for this caller, tool and
	// arguments (then st is it); rejected says why not, for a state of the
	// chain's that was not used.
	present, ok bool
	rejected    string
	st          sealed
	// reply is the user's answer to the chain's question, when st asked.
	reply call.Reply
	// asked says this round's answer is the chain's question; confirmed
	// that the user accepted, on this round or an earlier one.
	asked, confirmed bool
}

// chain returns the call id the round continues, "" for a new call.
func (r *round) chain() string {
	if r == nil || !r.ok {
		return ""
	}
	return r.st.Chain
}

// next is the number of the round after r.
func (r *round) next() int {
	if r == nil || !r.ok {
		return 1
	}
	return r.st.Round + 1
}

// openRound reads the requestState of a round, before the call is
// observed (its call id is the chain's): the chain's own state is
// checked and unwrapped, so that the handler sees its own state and
// inputResponses as it made them; a state the chain did not seal reaches
// the handler as the client sent it. It returns nil for a round without
// a state (a first round), the common case, at no cost.
func openRound(ctx context.Context, req *call.Request, cfg *config) *round {
	if req.Rounds == nil {
		return nil
	}
	raw := req.Rounds.State(req)
	if raw == "" {
		return nil
	}
	rd := &round{present: true}
	if !strings.HasPrefix(raw, statePrefix) {
		return rd // the handler's own, from before the chain sealed states
	}
	st, why := cfg.states.open(ctx, req, raw)
	if why == "" {
		rd.ok, rd.st = true, st
		if st.Confirm == confirmAsked {
			rd.reply = req.Rounds.Reply(req, confirmKey)
		}
	} else {
		rd.rejected = why
	}
	// An authentic state's inner state is the handler's; a state that was
	// not used still carries it, as unauthenticated as a handler's state
	// always is without the chain (a tool that needs confirmation never
	// runs on such a round: it is asked again).
	req.Rounds.Resume(req, st.Inner, confirmKey)
	return rd
}

// open checks a sealed state for req; why is "" when it is good, and st
// holds what it could read either way.
func (s *states) open(ctx context.Context, req *call.Request, raw string) (st sealed, why string) {
	if len(raw) > maxStateBytes {
		return st, stateForged
	}
	body, sig, ok := strings.Cut(raw[len(statePrefix):], ".")
	if !ok {
		return st, stateForged
	}
	payload, err1 := base64.RawURLEncoding.DecodeString(body)
	mac, err2 := base64.RawURLEncoding.DecodeString(sig)
	if err1 != nil || err2 != nil || json.Unmarshal(payload, &st) != nil {
		return sealed{}, stateForged
	}
	if !hmac.Equal(mac, s.mac(payload)) {
		return st, stateForged
	}
	now := s.now()
	switch {
	case now.UnixMilli() > st.Expires:
		return st, stateExpired
	case st.Tool != req.Name || st.Args != argumentsHash(req) || st.Subject != subjectHash(callerOf(ctx, req)):
		return st, stateMismatch
	}
	if st.Confirm != confirmNone && !s.use(st.Nonce, st.Expires, now) {
		return st, stateReplayed
	}
	return st, ""
}

// use records a confirmation state's nonce as used; false when it was.
// The memory is bounded: past maxUsedNonces, expired nonces are dropped,
// then any (a replay of a dropped one within its ten minutes goes
// unnoticed; it is still bound to its caller, tool and arguments).
func (s *states) use(nonce string, expires int64, now time.Time) bool {
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

// seal returns st as a requestState: its JSON and an HMAC-SHA256 of it, in
// base64url, after statePrefix; it sets the expiry and a fresh nonce.
func (s *states) seal(st sealed) string {
	st.Expires = s.now().Add(stateTTL).UnixMilli()
	var n [12]byte
	_, _ = rand.Read(n[:])
	st.Nonce = base64.RawURLEncoding.EncodeToString(n[:])
	payload, _ := json.Marshal(st) // strings and integers: never fails
	return statePrefix + base64.RawURLEncoding.EncodeToString(payload) + "." +
		base64.RawURLEncoding.EncodeToString(s.mac(payload))
}

func (s *states) mac(payload []byte) []byte {
	m := hmac.New(sha256.New, s.key)
	_, _ = m.Write(payload)
	return m.Sum(nil)
}

// argumentsHash is the hash of a call's arguments in a canonical form
// (object keys sorted, numbers as written), so that a state is good only
// for the arguments it was issued for.
func argumentsHash(req *call.Request) string {
	var v any = req.Args
	if len(req.Raw) > 0 {
		d := json.NewDecoder(bytes.NewReader(req.Raw))
		d.UseNumber()
		if d.Decode(&v) != nil {
			v = string(req.Raw)
		}
	}
	b, err := json.Marshal(v)
	if err != nil {
		b = nil
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:16])
}

// subjectHash names a caller in a state without its subject.
func subjectHash(c authz.Caller) string {
	sum := sha256.Sum256([]byte(c.Subject))
	return hex.EncodeToString(sum[:16])
}

// callerOf is who makes req, as its adapter finds it; the zero Caller when
// the adapter cannot tell.
func callerOf(ctx context.Context, req *call.Request) authz.Caller {
	if req.Identify == nil {
		return authz.Caller{}
	}
	return req.Identify(ctx, req)
}

// restate seals the requestState of a handler's input_required result,
// so that the next round continues this call: same call id, the user's
// confirmation kept, the handler's own state inside, returned to it.
func restate(ctx context.Context, req *call.Request, cfg *config, rec *record, o *outcome) {
	rd := rec.round
	st := sealed{Chain: rec.id(), Round: rd.next(), Tool: req.Name, Args: argumentsHash(req),
		Subject: subjectHash(callerOf(ctx, req)), Inner: req.Rounds.ResultState(o.res)}
	if rd != nil && rd.confirmed {
		st.Confirm = confirmGiven
	}
	o.res = req.Rounds.Restate(o.res, cfg.states.seal(st))
}

// inputRequired reports whether the call was answered with an
// input_required result: not a failure, not a success, not final.
func inputRequired(o *outcome) bool {
	return o.err == nil && o.proto == nil && o.res != nil && o.res.Status() == call.InputRequired
}

// askModern reports whether the call's confirmation is asked through an
// input_required result: the client speaks 2026-07-28 or later and did not
// say it cannot elicit (its per-request capabilities, in params._meta).
func askModern(ctx context.Context, req *call.Request) bool {
	if req.Rounds == nil || !req.Rounds.Modern(ctx, req) {
		return false
	}
	caps, ok := req.Meta[metaClientCapabilities].(map[string]any)
	if !ok {
		return true
	}
	_, elicits := caps["elicitation"]
	return elicits
}

// metaClientCapabilities is the params._meta key of a 2026-07-28 client's
// capabilities.
const metaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"

// Decisions of a confirmation, in the log line's authz group: asked
// through input_required, confirmed by the user.
const (
	decisionAsked     = "asked"
	decisionConfirmed = "confirmed"
)

// confirmedEarlier reports whether the user confirmed the call on an
// earlier round (the round carries the chain's state saying so, authentic
// and for this call): the tool's own later rounds, which mcp-go's bridge
// makes for a client before 2026-07-28, are not asked again.
func confirmedEarlier(rec *record, a *obs.Authz) bool {
	rd := rec.round
	if rd == nil || !rd.ok || rd.st.Confirm != confirmGiven {
		return false
	}
	a.Decision, rd.confirmed = decisionConfirmed, true
	return true
}

// noteConfirmed records that the user confirmed the call on this round,
// for the state of the tool's own next round (restate).
func noteConfirmed(rec *record) {
	if rec.round == nil {
		rec.round = &round{}
	}
	rec.round.confirmed = true
}

// confirmRound is confirm for a client that takes input_required results:
// the tool runs on a round whose state the chain sealed when it asked (or
// after the user accepted, for the handler's own later rounds) and whose
// answer accepts, for the same caller, tool and arguments, within
// stateTTL, once; anything else — a first round, a state forged, expired,
// used or for another call — is asked (again), never allowed. A refusal
// or a question is in o.
func confirmRound(ctx context.Context, req *call.Request, cfg *config, c authz.Confirm, r authz.Request,
	a *obs.Authz, rec *record, o *outcome) bool {
	rd := rec.round
	if rd != nil && rd.ok {
		switch {
		case rd.st.Confirm == confirmGiven, rd.st.Confirm == confirmAsked && rd.reply == call.Accepted:
			a.Decision, rd.confirmed = decisionConfirmed, true
			return true
		case rd.st.Confirm == confirmAsked && rd.reply != call.Unsupported:
			declined(r, a, o)
			return false
		}
	}
	if rd == nil {
		rd = &round{}
		rec.round = rd
	}
	a.Decision, a.Reason = decisionAsked, rd.rejected
	if rd.present && !rd.ok && rd.rejected == "" {
		// A state the chain did not seal (made up, or the handler's own
		// from before the chain sealed states) confirms nothing.
		a.Reason = stateForged
	}
	rd.asked = true
	st := sealed{Chain: rec.id(), Round: rd.next(), Tool: req.Name, Args: argumentsHash(req),
		Subject: subjectHash(callerOf(ctx, req)), Confirm: confirmAsked}
	o.res = req.Rounds.Ask(req, confirmKey, confirmMessage(c, r), cfg.states.seal(st))
	return false
}

// declined answers a call the user did not allow.
func declined(r authz.Request, a *obs.Authz, o *outcome) {
	a.Decision, a.Reason = obs.DecisionDeclined, policy.ReasonDeclined
	o.err = errDeclined(r.Name)
}
