package authz

import (
	"context"
	"encoding/json"
)

// Policy says who may call what. The zero Policy allows nothing that it
// does not name: once a Wrapper is given a policy (wrap.WithAuthorization),
// a tool, resource or prompt that none of Tools, Resources, Prompts and
// Public names is denied to every caller, and named in a warning when the
// server starts. Scopes in a map are all required. A Policy is read once,
// when the Wrapper is built; changing its maps later has no effect.
type Policy struct {
	// Tools maps a tool's name to the scopes a caller needs to see and
	// call it. A tool given wrap.WithScopes at registration needs those
	// too.
	Tools map[string][]string
	// Resources maps a resource's URI to the scopes a caller needs to
	// list and read it; a key ending in "*" is a prefix, matching every
	// URI (and URI template) that starts with what comes before it; a key
	// that is an RFC 6570 URI template ("db://{name}/tables") names that
	// template in its list and matches every URI it serves. An exact key
	// wins over templates, templates over prefixes.
	Resources map[string][]string
	// Prompts maps a prompt's name to the scopes a caller needs.
	Prompts map[string][]string
	// Public names the tools, prompts and resource URIs (or prefixes
	// ending in "*", or URI templates) that need no scope: the operator's opt-out, by name,
	// of the rule that what is not declared is denied. Check and ReadOnly
	// still apply to them.
	Public []string
	// Check decides what scopes cannot: claims, a tenant, the arguments.
	// It runs after the scopes are satisfied, for every call and for every
	// entry of a list (with Request.Listing set and no arguments); a
	// non-nil error denies. An *errs.Error keeps its code and message;
	// any other error becomes permission_denied with its text as the
	// message the model reads, so it must not hold the token or claims.
	Check func(ctx context.Context, c Caller, r Request) error
	// ReadOnly allows only tools annotated readOnlyHint (resources and
	// prompts, which change nothing, are unaffected): the read-only mode
	// servers otherwise ship as a flag of their own. Other tools are
	// hidden and answered like unknown ones.
	ReadOnly bool
	// StepUp lists a tool the caller lacks scopes for, and answers its
	// calls permission_denied naming the missing scopes, so that a client
	// can ask for a token that has them (over HTTP, RequireBearer's
	// Challenge answers 403 insufficient_scope instead). By default such a
	// tool is hidden and a call to it answered like one to an unknown
	// tool, so that a caller learns nothing of what it may not use.
	StepUp bool
	// Local are the scopes granted to the caller over stdio, the owner of
	// the server process, who presents no token (a Caller with Local
	// set). None by default: over stdio only Public tools are allowed
	// until the operator grants more.
	Local []string
	// Confirm asks the user before some tools run.
	Confirm Confirm
	// HashSubject logs and records a caller's subject as the first 16 hex
	// digits of its SHA-256 instead of the subject itself.
	HashSubject bool
}

// Confirm asks the user, through MCP elicitation, to confirm a call before
// the handler runs. A declined or cancelled confirmation answers the call
// permission_denied; the decision is in the call's log line and span.
type Confirm struct {
	// Destructive confirms every tool whose annotations say it may destroy
	// (destructiveHint, which MCP defaults to true for a tool that is not
	// readOnlyHint: mcp-go's NewTool sets it unless told otherwise).
	Destructive bool
	// Tools confirms the named tools whatever their annotations say.
	Tools []string
	// Message is what the user is asked; by default "Allow <tool> to run
	// with these arguments?" followed by the argument names.
	Message func(r Request) string
	// Unsupported says what happens when the client cannot elicit (it did
	// not declare the elicitation capability, or the transport cannot ask):
	// by default the call is refused permission_denied, saying that it
	// needs a confirmation the client cannot give; Allow runs it.
	Unsupported Fallback
}

// Fallback is what a confirmation does when the client cannot be asked.
type Fallback uint8

// The fallbacks.
const (
	// Refuse answers the call permission_denied.
	Refuse Fallback = iota
	// Allow runs the call unconfirmed; the log line says so.
	Allow
)

// Request is what a policy decides on.
type Request struct {
	// Method is the MCP method: tools/call, resources/read or prompts/get.
	Method string
	// Name is the tool's or prompt's name, or the resource's URI.
	Name string
	// Arguments are the call's arguments as the client sent them; nil in
	// a list.
	Arguments json.RawMessage
	// Listing says the request is an entry of tools/list, prompts/list,
	// resources/list or resources/templates/list being filtered, not a
	// call.
	Listing bool
	// Annotations are the tool's, when the server knows the tool.
	Annotations Annotations
}

// Annotations are a tool's hints, as its definition declares them.
type Annotations struct {
	// Known says the tool's definition was found; the rest mean nothing
	// otherwise.
	Known bool
	// ReadOnly, Destructive, Idempotent and OpenWorld are the readOnlyHint,
	// destructiveHint, idempotentHint and openWorldHint annotations, with
	// MCP's defaults (Destructive and OpenWorld true) when the tool says
	// nothing.
	ReadOnly, Destructive, Idempotent, OpenWorld bool
}
