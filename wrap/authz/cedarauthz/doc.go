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
// The policy's scopes and Public are decided first (a tool still needs to
// be declared there); Check then decides with Cedar's semantics: denied
// unless some permit matches and no forbid does.
//
// # What a policy sees
//
// A request is mapped to Cedar's principal, action, resource and context
// so:
//
//   - principal is MCP::Caller::"<Caller.Subject>" ("" when the caller is
//     anonymous), with the attributes scopes (a Set of String), claims (a
//     Record of the token's other claims) and local (Bool: the owner of
//     the process, over stdio).
//   - action is MCP::Action::"call" for tools/call, MCP::Action::"read"
//     for resources/read and MCP::Action::"get" for prompts/get.
//   - resource is MCP::Tool::"<name>", MCP::Resource::"<uri>" or
//     MCP::Prompt::"<name>". A tool has the Bool attributes readOnly,
//     destructive, idempotent and openWorld, its annotations, with MCP's
//     defaults (not read-only, destructive, not idempotent, open-world)
//     when the server does not know them, and annotated, which says
//     whether it did; destructive is false for a read-only tool, as MCP
//     says. A call's arguments, when it has some, are the record
//     attribute arguments (prompts have it too).
//   - context has listing (Bool: the request is an entry of a list being
//     filtered, not a call, and has no arguments) and argumentsSkipped
//     (Bool: the call had arguments beyond the bounds below, and resource
//     has no arguments attribute).
//
// JSON converts as it reads: strings, booleans, integers (Long), numbers
// Cedar's decimal holds (at most four decimal places), arrays as sets
// (unordered, without duplicates), objects as records; null, and a number
// Cedar cannot hold, leave the field out. Arguments larger than 64 KiB or
// nested deeper than 32 levels are not converted at all; a refusal says
// so. A claim nested deeper than that is left out of claims. A file in
// which no policy names arguments spares its calls their conversion.
//
//	forbid (principal, action == MCP::Action::"call", resource)
//	when { resource.destructive && !(principal.scopes.contains("admin")) };
//
//	permit (principal, action, resource)
//	when { principal.claims has tenant && principal.claims.tenant == "acme" };
//
//	forbid (principal, action == MCP::Action::"call", resource == MCP::Tool::"list_issues")
//	when { resource has arguments && resource.arguments has repo &&
//	       !(resource.arguments.repo like "acme/*") };
//
// An attribute that may be absent (a claim, the arguments, which a list's
// entries never have) is tested with has before it is read: reading an
// absent one is an error, and Cedar skips a policy that errs. A skipped
// permit allows nothing; a skipped forbid would let a call through, so on a
// call Check denies when a forbid fails to evaluate. In a list the failures
// count the other way, for showing: a permit that fails (most often for
// want of the arguments) lists the tool unless a forbid matched, and each
// call is then decided with its own arguments. mcp-go applies a list's
// filter to calls too, so a permit that reads the arguments still lets
// them through.
//
// # Reloading
//
// Load watches the file by polling its modification time and size (every
// DefaultInterval, WithInterval), with the standard library only. A change
// is loaded once it has settled for one interval; a file that then parses
// replaces the set in force atomically, one that does not is logged at
// Error (WithLogger) and the last good set stays in force: a broken edit
// never opens access. Write the file by renaming a complete one over it:
// a file caught half-written that still parses (cut between two policies)
// would be loaded. Reload reads it at once (on SIGHUP, say); Close ends the
// watching.
package cedarauthz
