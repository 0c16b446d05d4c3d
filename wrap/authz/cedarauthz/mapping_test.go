package cedarauthz_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/wrap/authz"
)

var alice = authz.Caller{
	Subject: "alice",
	Scopes:  []string{"issues:read", "issues:write"},
	Claims: map[string]any{
		"tenant": "acme",
		"roles":  []any{"dev", "oncall"},
		"level":  float64(3),
		"ratio":  0.25,
		"org":    map[string]any{"id": json.Number("42"), "name": "Acme"},
		"gone":   nil,
	},
}

func tool(name string, args string, a authz.Annotations) authz.Request {
	r := authz.Request{Method: "tools/call", Name: name, Annotations: a}
	if args != "" {
		r.Arguments = json.RawMessage(args)
	}
	return r
}

var known = authz.Annotations{Known: true}

// TestMapping: each part of a request reaches the policy where the package
// doc says it does.
func TestMapping(t *testing.T) {
	deep := strings.Repeat(`{"a":`, 40) + "1" + strings.Repeat("}", 40)
	var deepClaim any = "bottom"
	for range 40 {
		deepClaim = map[string]any{"a": deepClaim}
	}
	deepCaller := authz.Caller{Subject: "alice", Claims: map[string]any{"deep": deepClaim, "tenant": "acme"}}
	big := `{"blob":"` + strings.Repeat("x", 70<<10) + `"}`
	cases := []struct {
		name   string
		policy string
		caller authz.Caller
		req    authz.Request
		allow  bool
	}{
		{"principal is the subject", `permit (principal == MCP::Caller::"alice", action, resource);`, alice, tool("t", "", known), true},
		{"another subject", `permit (principal == MCP::Caller::"bob", action, resource);`, alice, tool("t", "", known), false},
		{"anonymous is the empty id", `permit (principal == MCP::Caller::"", action, resource);`, authz.Caller{}, tool("t", "", known), true},
		{"scopes are a set", `permit (principal, action, resource) when { principal.scopes.contains("issues:write") };`, alice, tool("t", "", known), true},
		{"scopes lack one", `permit (principal, action, resource) when { principal.scopes.containsAll(["issues:write", "admin"]) };`, alice, tool("t", "", known), false},
		{"a string claim", `permit (principal, action, resource) when { principal.claims.tenant == "acme" };`, alice, tool("t", "", known), true},
		{"an array claim is a set", `permit (principal, action, resource) when { principal.claims.roles.contains("oncall") };`, alice, tool("t", "", known), true},
		{"an integral number claim is a Long", `permit (principal, action, resource) when { principal.claims.level >= 3 };`, alice, tool("t", "", known), true},
		{"a fraction is a decimal", `permit (principal, action, resource) when { principal.claims.ratio == decimal("0.25") };`, alice, tool("t", "", known), true},
		{"an object claim is a record", `permit (principal, action, resource) when { principal.claims.org.id == 42 && principal.claims.org.name == "Acme" };`, alice, tool("t", "", known), true},
		{"a null claim is absent", `permit (principal, action, resource) when { !(principal.claims has gone) };`, alice, tool("t", "", known), true},
		{"a claim nested too deep is left out", `permit (principal, action, resource) when { !(principal.claims has deep) && principal.claims.tenant == "acme" };`, deepCaller, tool("t", "", known), true},
		{"local", `permit (principal, action, resource) when { principal.local };`, authz.Caller{Local: true}, tool("t", "", known), true},
		{"not local", `permit (principal, action, resource) when { principal.local };`, alice, tool("t", "", known), false},
		{"call is a tool", `permit (principal, action == MCP::Action::"call", resource == MCP::Tool::"t");`, alice, tool("t", "", known), true},
		{"read is a resource", `permit (principal, action == MCP::Action::"read", resource == MCP::Resource::"repo://acme/readme");`, alice, authz.Request{Method: "resources/read", Name: "repo://acme/readme"}, true},
		{"get is a prompt", `permit (principal, action == MCP::Action::"get", resource is MCP::Prompt);`, alice, authz.Request{Method: "prompts/get", Name: "triage"}, true},
		{"a prompt is not a tool", `permit (principal, action, resource is MCP::Tool);`, alice, authz.Request{Method: "prompts/get", Name: "triage"}, false},
		{"an unknown method", `permit (principal, action, resource);`, alice, authz.Request{Method: "sampling/createMessage", Name: "t"}, false},
		{"annotations", `permit (principal, action, resource) when { resource.annotated && resource.readOnly && !resource.destructive && resource.idempotent && !resource.openWorld };`,
			alice, tool("t", "", authz.Annotations{Known: true, ReadOnly: true, Destructive: true, Idempotent: true}), true},
		{"unknown annotations are MCP's defaults", `permit (principal, action, resource) when { !resource.annotated && !resource.readOnly && resource.destructive && !resource.idempotent && resource.openWorld };`,
			alice, tool("t", "", authz.Annotations{}), true},
		{"arguments are a record", `permit (principal, action, resource) when { resource.arguments.repo like "acme/*" && resource.arguments.limit == 10 && resource.arguments.labels.contains("bug") };`,
			alice, tool("t", `{"repo":"acme/site","limit":10,"labels":["bug","ui"]}`, known), true},
		{"arguments read by an escaped name", `permit (principal, action, resource) when { resource["\u{61}rguments"].repo == "x" };`,
			alice, tool("t", `{"repo":"x"}`, known), true},
		{"no arguments, no attribute", `permit (principal, action, resource) when { !(resource has arguments) && !context.argumentsSkipped };`, alice, tool("t", "", known), true},
		{"arguments of a list entry are ignored", `permit (principal, action, resource) when { context.listing && !(resource has arguments) };`,
			alice, authz.Request{Method: "tools/call", Name: "t", Listing: true, Arguments: json.RawMessage(`{"a":1}`)}, true},
		{"too large arguments are skipped", `permit (principal, action, resource) when { context.argumentsSkipped && !(resource has arguments) };`, alice, tool("t", big, known), true},
		{"too deep arguments are skipped", `permit (principal, action, resource) when { context.argumentsSkipped && !(resource has arguments) };`, alice, tool("t", deep, known), true},
		{"arguments that are no object are skipped", `permit (principal, action, resource) when { context.argumentsSkipped };`, alice, tool("t", `[1,2]`, known), true},
		{"32 levels are converted", `permit (principal, action, resource) when { resource has arguments };`,
			alice, tool("t", strings.Repeat(`{"a":`, 32)+"1"+strings.Repeat("}", 32), known), true},
		{"a forbid wins", `permit (principal, action, resource); forbid (principal, action, resource) when { resource.destructive };`, alice, tool("t", "", authz.Annotations{Known: true, Destructive: true}), false},
		{"no permit, no access", `forbid (principal, action, resource) when { resource.destructive };`, alice, tool("t", "", known), false},
		{"a forbid that errs denies a call", `permit (principal, action, resource); forbid (principal, action, resource) when { principal.claims.nope == 1 };`, alice, tool("t", "", known), false},
		{"a forbid that errs is skipped in a list", `permit (principal, action, resource); forbid (principal, action, resource) when { resource.arguments.force };`,
			alice, authz.Request{Method: "tools/call", Name: "t", Listing: true}, true},
		{"a permit that errs shows a list entry", `permit (principal, action, resource) when { resource.arguments.repo like "acme/*" };`,
			alice, authz.Request{Method: "tools/call", Name: "t", Listing: true}, true},
		{"a forbid that matches hides a list entry whatever errs", `permit (principal, action, resource) when { resource.arguments.repo like "acme/*" }; forbid (principal, action, resource) when { resource.destructive };`,
			alice, authz.Request{Method: "tools/call", Name: "t", Listing: true, Annotations: authz.Annotations{Known: true, Destructive: true}}, false},
		{"a forbid that errs is skipped in a list with a permit", `permit (principal, action, resource); forbid (principal, action, resource) when { principal.claims.nope };`,
			alice, authz.Request{Method: "tools/call", Name: "t", Listing: true}, true},
		{"a forbid that errs outweighs a permit that matches on a call", `permit (principal, action, resource); forbid (principal, action, resource) when { resource.arguments.force };`,
			alice, tool("t", `{"repo":"x"}`, known), false},
		{"nothing but errors hides a list entry", `forbid (principal, action, resource) when { resource.arguments.force };`,
			alice, authz.Request{Method: "tools/call", Name: "t", Listing: true}, false},
		{"a permit that errs allows nothing", `permit (principal, action, resource) when { principal.claims.nope == 1 };`, alice, tool("t", "", known), false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := load(t, tc.policy).Check(context.Background(), tc.caller, tc.req)
			if got := err == nil; got != tc.allow {
				t.Fatalf("allowed %v (%v), want %v", got, err, tc.allow)
			}
		})
	}
}

// TestRefusal: a refusal is permission_denied naming the action and the
// resource, says when the arguments were skipped, and quotes no claim;
// its cause names the policy for the operator.
func TestRefusal(t *testing.T) {
	p := load(t, `@id("no-destroy")
forbid (principal, action, resource) when { resource.destructive && principal.claims.tenant == "acme" };
permit (principal, action, resource);
@id("strict")
forbid (principal, action, resource) when { resource.arguments.force };`)
	cases := []struct {
		name      string
		req       authz.Request
		msg, diag []string
	}{
		{"forbid", tool("drop", "", authz.Annotations{Known: true, Destructive: true}),
			[]string{`call on tool "drop" is denied: a policy forbids it`}, []string{"matched no-destroy", "policies.cedar:1:1"}},
		{"skipped arguments", tool("drop", `{"x":"`+strings.Repeat("y", 65<<10)+`"}`, authz.Annotations{}),
			[]string{`call on tool "drop"`, "its arguments were not evaluated: they are larger than 64 KiB"}, []string{"no-destroy"}},
		{"default deny", authz.Request{Method: "resources/read", Name: "admin://audit"}, nil, nil},
		{"a forbid that fails", tool("list", `{"q":"x"}`, known),
			[]string{`call on tool "list" is denied: a policy that forbids it could not be evaluated`}, []string{"matched policy1", "strict (", ") could not be evaluated"}},
	}
	q := load(t, `permit (principal, action == MCP::Action::"call", resource);`)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			pol := p
			if tc.msg == nil {
				pol = q
				tc.msg = []string{`read on resource "admin://audit" is denied: no policy permits it`}
				tc.diag = []string{"no policy matched"}
			}
			err := pol.Check(context.Background(), alice, tc.req)
			var e *errs.Error
			if !errors.As(err, &e) || e.Code() != errs.PermissionDenied {
				t.Fatalf("err %v, want permission_denied", err)
			}
			for _, s := range tc.msg {
				if !strings.Contains(e.Message(), s) {
					t.Errorf("message %q lacks %q", e.Message(), s)
				}
			}
			cause := errors.Unwrap(e)
			for _, s := range tc.diag {
				if cause == nil || !strings.Contains(cause.Error(), s) {
					t.Errorf("cause %v lacks %q", cause, s)
				}
			}
			if strings.Contains(err.Error(), "acme") {
				t.Errorf("a claim's value is in %q", err)
			}
		})
	}
}
