package wrap

import (
	"context"
	"encoding/json"
	"slices"
	"time"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/internal/call"
	"github.com/mcpwrap/mcpwrap/internal/obs"
	"github.com/mcpwrap/mcpwrap/internal/policy"
	"github.com/mcpwrap/mcpwrap/wrap/authz"
)

// WithAuthorization enforces p: who may call which tool, read which
// resource and get which prompt (package authz). The decision is made
// before any other layer runs, so a call the policy denies runs nothing
// (no rate-limit token, no bulkhead slot, no handler), and an SDK adapter
// leaves out of tools/list, prompts/list and resources/list what the
// caller may not use. A tool, resource or prompt the policy does not
// declare is denied to every caller and named in a warning on the first
// such request. Given to the Wrapper; a tool's own chain uses the
// Wrapper's.
func WithAuthorization(p authz.Policy) Option {
	return func(c *config) { c.policy = policy.New(p) }
}

// WithScopes declares the scopes one tool requires, given in ForTool or at
// the tool's registration (mcpgo.Tool, gosdk.Tool): on top of what
// WithAuthorization's policy maps say, and a declaration all the same when
// scopes is empty (the tool needs no scope). It has an effect only with
// WithAuthorization; given to the Wrapper itself, it makes New panic.
func WithScopes(scopes ...string) Option {
	return func(c *config) { c.scopes = append(slices.Clip(c.scopes), scopes...); c.scoped = true }
}

// RequiredScopes returns the scopes a request of method (tools/call,
// resources/read, prompts/get) for name needs under w's policy, nil when
// it needs none or w has no policy. It has the shape of
// authz.Bearer.Challenge, the HTTP answer 403 insufficient_scope that lets a
// client ask for a token that has them.
func (w *Wrapper) RequiredScopes(method, name string) []string {
	if w.cfg.policy == nil {
		return nil
	}
	s, _ := w.cfg.policy.Required(method, name)
	return slices.Clone(s)
}

// methodOf is the MCP method of a request kind.
func methodOf(k call.Kind) string {
	switch k {
	case call.Resource:
		return policy.ResourcesRead
	case call.Prompt:
		return policy.PromptsGet
	}
	return policy.ToolsCall
}

// confirmTimeout bounds how long a call waits for the user's confirmation.
const confirmTimeout = 2 * time.Minute

// authorize is the policy's layer: it decides whether req may run and, for
// a tool the policy wants confirmed, asks the user. It reports false, with
// the answer in o, when the call must not run.
func authorize(ctx context.Context, req *call.Request, cfg *config, rec *record, o *outcome) bool {
	e := cfg.policy
	caller := req.Caller(ctx)
	r := authzRequest(ctx, cfg, req)
	d := e.Decide(ctx, caller, r)
	var a *obs.Authz
	if cfg.observer != nil {
		a = e.Audit(d, caller)
		rec.authz = a
	}
	if d.HiddenFromAll() {
		warnUndeclared(ctx, req, cfg, r)
	}
	switch d.Verdict {
	case policy.Hidden:
		unknown(req, o)
		return false
	case policy.Denied:
		o.err = d.Err
		return false
	}
	if !d.Confirm {
		return true
	}
	return confirmed(ctx, req, cfg, r, a, rec, o)
}

// authzRequest is what the policy decides on: the method and name, and the
// tool's annotations and the arguments when the policy reads them.
func authzRequest(ctx context.Context, cfg *config, req *call.Request) authz.Request {
	r := authz.Request{Method: methodOf(req.Kind), Name: req.Name}
	if req.Kind == call.Tool && cfg.policy.Annotated() {
		r.Annotations = toolInfo(ctx, cfg, req).Annotations
	}
	if cfg.policy.Checks() {
		r.Arguments = rawArguments(req)
	}
	return r
}

// confirmed asks the user to confirm a call the policy wants confirmed,
// on this round (a 2026-07-28 client) or through an elicitation, unless an
// earlier round did; it reports false, with the answer in o, when the call
// must not run.
func confirmed(ctx context.Context, req *call.Request, cfg *config, r authz.Request, a *obs.Authz, rec *record, o *outcome) bool {
	e := cfg.policy
	if r.Arguments == nil {
		r.Arguments = rawArguments(req)
	}
	if a == nil {
		a = new(obs.Authz) // the decision is not reported, but confirm records it
	}
	if askModern(ctx, req) {
		return confirmRound(ctx, req, cfg, e.Confirmation(), r, a, rec, o)
	}
	if confirmedEarlier(rec, a) {
		return true
	}
	if !confirm(ctx, req, e.Confirmation(), r, a, o) {
		return false
	}
	if a.Decision == decisionConfirmed {
		noteConfirmed(rec)
	}
	return true
}

// unknown answers req as the SDK answers a name it does not know.
func unknown(req *call.Request, o *outcome) {
	if req.Unknown != nil {
		if err := req.Unknown(req); err != nil {
			if cause, code, c, ok := call.ProtocolOf(err); ok {
				o.proto, o.protoCode, o.protoClass = cause, code, c
				return
			}
			o.err = errs.From(err)
			return
		}
	}
	what := "tool"
	switch req.Kind {
	case call.Resource:
		what = "resource"
	case call.Prompt:
		what = "prompt"
	}
	o.err = errs.Newf(errs.NotFound, "unknown %s %q", what, req.Name)
}

// confirm asks the user whether the call may run, through an elicitation
// request (a client before 2026-07-28; confirmRound asks the others), and
// reports whether it may; a refusal's answer is in o.
func confirm(ctx context.Context, req *call.Request, c authz.Confirm, r authz.Request, a *obs.Authz, o *outcome) bool {
	reply := call.Unsupported
	if req.Ask != nil {
		msg := policy.ConfirmMessage(c, r)
		actx, cancel := context.WithTimeout(ctx, confirmTimeout)
		var err error
		reply, err = req.Ask(actx, req, msg)
		cancel()
		if err != nil { // the client failed to answer, or took too long
			reply = call.Cancelled
		}
	}
	switch reply {
	case call.Accepted:
		a.Decision = decisionConfirmed
		return true
	case call.Unsupported:
		if c.Unsupported == authz.Allow {
			a.Decision = "unconfirmed"
			return true
		}
		a.Decision, a.Reason = obs.DecisionDenied, policy.ReasonNoConfirm
		o.err = errs.Newf(errs.PermissionDenied, "%s needs the user's confirmation before it runs, and this client cannot ask for one (it does not support elicitation)", r.Name)
		return false
	}
	declined(r, a, o)
	return false
}

// errDeclined is the answer to a call the user did not allow.
func errDeclined(name string) *errs.Error {
	return errs.Newf(errs.PermissionDenied, "the user did not allow %s to run; do not call it again unless the user asks for it", name)
}

// rawArguments are the request's arguments as JSON, for a policy's Check.
func rawArguments(req *call.Request) json.RawMessage {
	if len(req.Raw) > 0 {
		return req.Raw
	}
	if req.Args == nil {
		return nil
	}
	b, err := json.Marshal(req.Args)
	if err != nil {
		return nil
	}
	return b
}
