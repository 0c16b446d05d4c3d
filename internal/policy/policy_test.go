package policy_test

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/internal/logbuf"
	"github.com/mcpwrap/mcpwrap/internal/obs"
	"github.com/mcpwrap/mcpwrap/internal/policy"
	"github.com/mcpwrap/mcpwrap/wrap/authz"
)

func TestDecide(t *testing.T) {
	base := authz.Policy{
		Tools:     map[string][]string{"read": {"a"}, "write": {"a", "b"}},
		Resources: map[string][]string{"file:///etc/*": {"root"}, "file:///*": {"a"}, "db://x": {"b"}},
		Prompts:   map[string][]string{"p": {"a"}},
		Public:    []string{"ping", "docs://*"},
		Local:     []string{"a"},
	}
	ro := authz.Annotations{Known: true, ReadOnly: true}
	caller := authz.Caller{Subject: "u", Scopes: []string{"a"}}
	for _, tc := range []struct {
		name    string
		mod     func(*authz.Policy)
		c       authz.Caller
		r       authz.Request
		verdict policy.Verdict
		reason  string
		missing []string
		confirm bool
	}{
		{name: "granted", c: caller, r: authz.Request{Method: policy.ToolsCall, Name: "read"}},
		{name: "missing scope hides", c: caller, r: authz.Request{Method: policy.ToolsCall, Name: "write"}, verdict: policy.Hidden, reason: "scope", missing: []string{"b"}},
		{name: "step-up denies", mod: func(p *authz.Policy) { p.StepUp = true }, c: caller, r: authz.Request{Method: policy.ToolsCall, Name: "write"}, verdict: policy.Denied, reason: "scope", missing: []string{"b"}},
		{name: "step-up lists", mod: func(p *authz.Policy) { p.StepUp = true }, c: caller, r: authz.Request{Method: policy.ToolsCall, Name: "write", Listing: true}, reason: "scope", missing: []string{"b"}},
		{name: "undeclared", c: authz.Caller{Scopes: []string{"a", "b", "root"}}, r: authz.Request{Method: policy.ToolsCall, Name: "other"}, verdict: policy.Hidden, reason: "undeclared"},
		{name: "public needs nothing", r: authz.Request{Method: policy.ToolsCall, Name: "ping"}},
		{name: "public prefix", r: authz.Request{Method: policy.ResourcesRead, Name: "docs://intro"}},
		{name: "anonymous", r: authz.Request{Method: policy.ToolsCall, Name: "read"}, verdict: policy.Hidden, reason: "scope", missing: []string{"a"}},
		{name: "longest prefix wins", c: caller, r: authz.Request{Method: policy.ResourcesRead, Name: "file:///etc/shadow"}, verdict: policy.Hidden, reason: "scope", missing: []string{"root"}},
		{name: "shorter prefix", c: caller, r: authz.Request{Method: policy.ResourcesRead, Name: "file:///home/x"}},
		{name: "exact resource", c: caller, r: authz.Request{Method: policy.ResourcesRead, Name: "db://x"}, verdict: policy.Hidden, reason: "scope", missing: []string{"b"}},
		{name: "prompt", c: caller, r: authz.Request{Method: policy.PromptsGet, Name: "p"}},
		{name: "a prompt is not a tool", c: caller, r: authz.Request{Method: policy.PromptsGet, Name: "read"}, verdict: policy.Hidden, reason: "undeclared"},
		{name: "local gets Local", c: authz.Caller{Local: true}, r: authz.Request{Method: policy.ToolsCall, Name: "read"}},
		{name: "local gets only Local", c: authz.Caller{Local: true, Scopes: []string{"b"}}, r: authz.Request{Method: policy.ToolsCall, Name: "write"}, verdict: policy.Hidden, reason: "scope", missing: []string{"b"}},
		{name: "read-only hides a writer", mod: func(p *authz.Policy) { p.ReadOnly = true }, c: caller, r: authz.Request{Method: policy.ToolsCall, Name: "read"}, verdict: policy.Hidden, reason: "read_only"},
		{name: "read-only allows a reader", mod: func(p *authz.Policy) { p.ReadOnly = true }, c: caller, r: authz.Request{Method: policy.ToolsCall, Name: "read", Annotations: ro}},
		{name: "read-only leaves resources", mod: func(p *authz.Policy) { p.ReadOnly = true }, c: caller, r: authz.Request{Method: policy.ResourcesRead, Name: "file:///x"}},
		{name: "unknown annotations are destructive", mod: func(p *authz.Policy) { p.Confirm.Destructive = true }, c: caller, r: authz.Request{Method: policy.ToolsCall, Name: "read"}, confirm: true},
		{name: "a reader is not confirmed", mod: func(p *authz.Policy) { p.Confirm.Destructive = true }, c: caller, r: authz.Request{Method: policy.ToolsCall, Name: "read", Annotations: ro}},
		{name: "named confirmed", mod: func(p *authz.Policy) { p.Confirm.Tools = []string{"read"} }, c: caller, r: authz.Request{Method: policy.ToolsCall, Name: "read", Annotations: ro}, confirm: true},
		{name: "lists are never confirmed", mod: func(p *authz.Policy) { p.Confirm.Tools = []string{"read"} }, c: caller, r: authz.Request{Method: policy.ToolsCall, Name: "read", Listing: true}},
		{name: "check denies", mod: func(p *authz.Policy) {
			p.Check = func(context.Context, authz.Caller, authz.Request) error { return errors.New("no") }
		}, c: caller, r: authz.Request{Method: policy.ToolsCall, Name: "read"}, verdict: policy.Denied, reason: "check"},
		{name: "check hides in a list", mod: func(p *authz.Policy) {
			p.Check = func(context.Context, authz.Caller, authz.Request) error { return errors.New("no") }
		}, c: caller, r: authz.Request{Method: policy.ToolsCall, Name: "read", Listing: true}, verdict: policy.Hidden, reason: "check"},
		{name: "a check that panics hides", mod: func(p *authz.Policy) {
			p.Check = func(context.Context, authz.Caller, authz.Request) error { panic("boom") }
		}, c: caller, r: authz.Request{Method: policy.ToolsCall, Name: "read"}, verdict: policy.Hidden, reason: "check_panic"},
		{name: "a check that panics hides in a list", mod: func(p *authz.Policy) {
			p.Check = func(context.Context, authz.Caller, authz.Request) error { panic("boom") }
		}, c: caller, r: authz.Request{Method: policy.ToolsCall, Name: "read", Listing: true}, verdict: policy.Hidden, reason: "check_panic"},
		{name: "check runs after scopes", mod: func(p *authz.Policy) {
			p.Check = func(context.Context, authz.Caller, authz.Request) error { panic("must not run") }
		}, c: caller, r: authz.Request{Method: policy.ToolsCall, Name: "write"}, verdict: policy.Hidden, reason: "scope", missing: []string{"b"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := base
			if tc.mod != nil {
				tc.mod(&p)
			}
			d := policy.New(p).Decide(context.Background(), tc.c, tc.r)
			if d.Verdict != tc.verdict || d.Reason != tc.reason || !slices.Equal(d.Missing, tc.missing) || d.Confirm != tc.confirm {
				t.Fatalf("got %v %q missing %v confirm %v, want %v %q missing %v confirm %v",
					d.Verdict, d.Reason, d.Missing, d.Confirm, tc.verdict, tc.reason, tc.missing, tc.confirm)
			}
			if d.Verdict == policy.Denied && (d.Err == nil || d.Err.Code() != errs.PermissionDenied) {
				t.Fatalf("denied with %v", d.Err)
			}
		})
	}
}

// TestDeclareAtRegistration: a tool's registration adds to what the
// policy's map says, and declares a tool the map does not name.
func TestDeclareAtRegistration(t *testing.T) {
	e := policy.New(authz.Policy{Tools: map[string][]string{"t": {"a"}}})
	e.Declare("t", []string{"b"})
	e.Declare("t", []string{"b", "c"})
	e.Declare("free", nil)
	if s, ok := e.Required(policy.ToolsCall, "t"); !ok || !slices.Equal(s, []string{"a", "b", "c"}) {
		t.Fatalf("t requires %v (%v)", s, ok)
	}
	if s, ok := e.Required(policy.ToolsCall, "free"); !ok || len(s) != 0 {
		t.Fatalf("free requires %v (%v)", s, ok)
	}
}

// TestPolicyIsCopied: changing the maps after New changes nothing.
func TestPolicyIsCopied(t *testing.T) {
	m := map[string][]string{"t": {"a"}}
	e := policy.New(authz.Policy{Tools: m})
	m["t"][0] = "x"
	m["u"] = nil
	if s, _ := e.Required(policy.ToolsCall, "t"); !slices.Equal(s, []string{"a"}) {
		t.Fatalf("t requires %v after the caller's map changed", s)
	}
	if _, ok := e.Required(policy.ToolsCall, "u"); ok {
		t.Fatal("a name added later is declared")
	}
}

func TestHashSubject(t *testing.T) {
	c := authz.Caller{Subject: "alice@example.com"}
	if got := policy.New(authz.Policy{}).Subject(c); got != c.Subject {
		t.Fatalf("subject %q", got)
	}
	h := policy.New(authz.Policy{HashSubject: true}).Subject(c)
	if len(h) != 16 || h == c.Subject {
		t.Fatalf("hashed subject %q", h)
	}
}

// TestWarningsAreBounded: undeclared names come from requests, which
// a client chooses; the policy warns of a bounded number of them and
// remembers no more.
func TestWarningsAreBounded(t *testing.T) {
	e := policy.New(authz.Policy{})
	logs := &logbuf.Buffer{}
	o := obs.New(obs.WithLogger(logs.Logger()))
	for i := range 3000 {
		e.Warn(context.Background(), o, authz.Request{Method: policy.PromptsGet, Name: "prompt_" + strconv.Itoa(i)})
	}
	e.Warn(context.Background(), o, authz.Request{Method: policy.PromptsGet, Name: "prompt_0"}) // seen: no line
	lines, err := logs.Lines()
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) != 1001 || !strings.Contains(logs.String(), "the next are not named") {
		t.Fatalf("%d warning lines for 3000 undeclared names, want 1000 and one saying the rest are not named", len(lines))
	}
}

// TestAuditCapsGrantedScopes: a token with 10 000 scopes made every log
// line of its calls 129 KB (the audit listed each granted scope); the
// audit keeps the required scopes the caller holds and a bounded number
// of the others, and never changes the caller's slice.
func TestAuditCapsGrantedScopes(t *testing.T) {
	e := policy.New(authz.Policy{Tools: map[string][]string{"read": {"x:read"}}})
	scopes := make([]string, 10000)
	for i := range scopes {
		scopes[i] = "scope:" + strconv.Itoa(i)
	}
	scopes[9999] = "x:read"
	c := authz.Caller{Subject: "u", Scopes: scopes}
	d := e.Decide(context.Background(), c, authz.Request{Method: policy.ToolsCall, Name: "read"})
	a := e.Audit(d, c)
	if len(a.Granted) > 33 || !slices.Contains(a.Granted, "x:read") {
		t.Fatalf("the audit lists %d granted scopes (x:read among them: %v)", len(a.Granted), slices.Contains(a.Granted, "x:read"))
	}
	if scopes[9999] != "x:read" || scopes[0] != "scope:0" || len(scopes) != 10000 {
		t.Fatal("the caller's scopes changed")
	}
}
