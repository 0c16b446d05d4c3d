// Package cedarauthz decides authz.Policy's Check with Cedar policies
// (https://www.cedarpolicy.com) kept in a file, which it reloads when the
// file changes, without a restart. It is a module of its own, so that only
// the servers that use it link cedar-go.
//
//	p, err := cedarauthz.Load("policies.cedar", cedarauthz.WithLogger(logger))
//	if err != nil {
//		return err
//	}
//	defer p.Close()
//	w := wrap.New(wrap.WithAuthorization(authz.Policy{
//		Public: []string{"*"}, // the scopes gate nothing; Cedar decides
//		Check:  p.Check,
//	}))
//
// The policy's scopes and Public are decided first; Check then decides
// with Cedar's semantics: denied unless some permit matches and no forbid
// does, and on a call a forbid that fails to evaluate denies too. The
// principal is MCP::Caller::"<subject>" (scopes, claims, local), the action
// MCP::Action::"call", "read" or "get", the resource MCP::Tool, MCP::Resource
// or MCP::Prompt by name (a tool's annotations and the call's arguments as
// attributes). A file that fails to parse keeps the last good set in force.
// docs/authorization-cedar.md has the whole mapping, the bounds and the
// reloading rules.
package cedarauthz
