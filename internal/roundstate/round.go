package roundstate

import (
	"context"
	"strings"

	"github.com/mcpwrap/mcpwrap/internal/call"
)

// Round is what the chain knows of one round of a multi round-trip call:
// the state it carried, when it was the chain's, and what this round did
// with a confirmation. It exists only for rounds that carry a state and
// calls the chain asks.
type Round struct {
	// Present says the round carried a requestState; OK that it was the
	// chain's, authentic, fresh, unused and for this caller, tool and
	// arguments (then St is it); Rejected says why not, for a state of the
	// chain's that was not used.
	Present, OK bool
	Rejected    string
	St          Sealed
	// Reply is the user's answer to the chain's question, when St asked.
	Reply call.Reply
	// Asked says this round's answer is the chain's question; Confirmed
	// that the user accepted, on this round or an earlier one.
	Asked, Confirmed bool
}

// Chain returns the call id the round continues, "" for a new call.
func (r *Round) Chain() string {
	if r == nil || !r.OK {
		return ""
	}
	return r.St.Chain
}

// Next is the state of the round after r of the call chain, req being
// this round: its number, tool, arguments and subject.
func (r *Round) Next(ctx context.Context, req *call.Request, chain string) Sealed {
	n := 1
	if r != nil && r.OK {
		n = r.St.Round + 1
	}
	return Sealed{Chain: chain, Round: n, Tool: req.Name, Args: ArgumentsHash(req.Raw, req.Args),
		Subject: SubjectHash(req.Caller(ctx).Subject)}
}

// Round reads the requestState of a round, before the call is observed
// (its call id is the chain's): the chain's own state is checked and
// unwrapped, so that the handler sees its own state and inputResponses as
// it made them; a state the chain did not seal reaches the handler as the
// client sent it. It returns nil for a round without a state (a first
// round), the common case, at no cost.
func (s *States) Round(ctx context.Context, req *call.Request) *Round {
	if req.Rounds == nil {
		return nil
	}
	raw := req.Rounds.State(req)
	if raw == "" {
		return nil
	}
	rd := &Round{Present: true}
	if !strings.HasPrefix(raw, Prefix) {
		return rd // the handler's own, from before the chain sealed states
	}
	st, why := s.Open(raw, req.Name, ArgumentsHash(req.Raw, req.Args), SubjectHash(req.Caller(ctx).Subject))
	if why == "" {
		rd.OK, rd.St = true, st
		if st.Confirm == ConfirmAsked {
			rd.Reply = req.Rounds.Reply(req, ConfirmKey)
		}
	} else {
		rd.Rejected = why
	}
	// An authentic state's inner state is the handler's; a state that was
	// not used still carries it, as unauthenticated as a handler's state
	// always is without the chain (a tool that needs confirmation never
	// runs on such a round: it is asked again).
	req.Rounds.Resume(req, st.Inner, ConfirmKey)
	return rd
}
