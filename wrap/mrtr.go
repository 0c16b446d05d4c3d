package wrap

import (
	"bytes"
	"context"

	"github.com/mcpwrap/mcpwrap/internal/call"
	"github.com/mcpwrap/mcpwrap/internal/obs"
	"github.com/mcpwrap/mcpwrap/internal/policy"
	"github.com/mcpwrap/mcpwrap/internal/roundstate"
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
			c.states = roundstate.New(bytes.Clone(key))
		}
	}
}

// restate seals the requestState of a handler's input_required result,
// so that the next round continues this call: same call id, the user's
// confirmation kept, the handler's own state inside, returned to it.
func restate(ctx context.Context, req *call.Request, cfg *config, rec *record, o *outcome) {
	rd := rec.round
	st := rd.Next(ctx, req, rec.id())
	st.Inner = req.Rounds.ResultState(o.res)
	if rd != nil && rd.Confirmed {
		st.Confirm = roundstate.ConfirmGiven
	}
	o.res = req.Rounds.Restate(o.res, cfg.states.Seal(st))
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
	if rd == nil || !rd.OK || rd.St.Confirm != roundstate.ConfirmGiven {
		return false
	}
	a.Decision, rd.Confirmed = decisionConfirmed, true
	return true
}

// noteConfirmed records that the user confirmed the call on this round,
// for the state of the tool's own next round (restate).
func noteConfirmed(rec *record) {
	if rec.round == nil {
		rec.round = &roundstate.Round{}
	}
	rec.round.Confirmed = true
}

// confirmRound is confirm for a client that takes input_required results:
// the tool runs on a round whose state the chain sealed when it asked (or
// after the user accepted, for the handler's own later rounds) and whose
// answer accepts, for the same caller, tool and arguments, within
// roundstate.TTL, once; anything else — a first round, a state forged, expired,
// used or for another call — is asked (again), never allowed. A refusal
// or a question is in o.
func confirmRound(ctx context.Context, req *call.Request, cfg *config, c authz.Confirm, r authz.Request,
	a *obs.Authz, rec *record, o *outcome) bool {
	rd := rec.round
	if rd != nil && rd.OK {
		switch {
		case rd.St.Confirm == roundstate.ConfirmGiven, rd.St.Confirm == roundstate.ConfirmAsked && rd.Reply == call.Accepted:
			a.Decision, rd.Confirmed = decisionConfirmed, true
			return true
		case rd.St.Confirm == roundstate.ConfirmAsked && rd.Reply != call.Unsupported:
			declined(r, a, o)
			return false
		}
	}
	o.res = askConfirm(ctx, req, cfg, c, r, a, rec)
	return false
}

// askConfirm is the call's answer that asks for the user's confirmation,
// in a round sealed for this chain, tool, arguments and subject.
func askConfirm(ctx context.Context, req *call.Request, cfg *config, c authz.Confirm, r authz.Request, a *obs.Authz, rec *record) call.Result {
	rd := rec.round
	if rd == nil {
		rd = &roundstate.Round{}
		rec.round = rd
	}
	a.Decision, a.Reason = decisionAsked, rd.Rejected
	if rd.Present && !rd.OK && rd.Rejected == "" {
		// A state the chain did not seal (made up, or the handler's own
		// from before the chain sealed states) confirms nothing.
		a.Reason = roundstate.Forged
	}
	rd.Asked = true
	st := rd.Next(ctx, req, rec.id())
	st.Confirm = roundstate.ConfirmAsked
	return req.Rounds.Ask(req, roundstate.ConfirmKey, policy.ConfirmMessage(c, r), cfg.states.Seal(st))
}

// declined answers a call the user did not allow.
func declined(r authz.Request, a *obs.Authz, o *outcome) {
	a.Decision, a.Reason = obs.DecisionDeclined, policy.ReasonDeclined
	o.err = errDeclined(r.Name)
}
