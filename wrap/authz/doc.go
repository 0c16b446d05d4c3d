// Package authz decides who may call which tool: the identity of the
// caller (Caller, from a bearer token a Verifier checked, or the process
// owner over stdio), and a Policy that says, per tool, resource and
// prompt, what a caller needs. The policy is enforced by the chain of
// package wrap (wrap.WithAuthorization) on both SDKs, before any other
// layer runs: a denied call runs nothing, and a tool the caller may not
// use is left out of the lists it is shown and answered like an unknown
// tool when called by name.
//
//	w := wrap.New(wrap.WithLogger(logger), wrap.WithAuthorization(authz.Policy{
//		Tools: map[string][]string{
//			"list_issues":       {"issues:read"},
//			"delete_repository": {"repo:admin"},
//		},
//	}))
//
// Once a policy is set it is fail-closed: a tool the policy says nothing
// of is denied to every caller (and named in a warning at start-up) unless
// Policy.Public names it. docs/authorization.md has the rest: verifying
// tokens over HTTP (RequireBearer, package jwtauth, go-sdk's
// auth.RequireBearerToken), what stdio enforces, read-only mode,
// confirmation of destructive calls, and the audit trail.
package authz
