package cedarauthz_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/mcpwrap/mcpwrap/wrap/authz"
)

// policiesOf is n policies of the shapes people write: n-1 permits of one
// tool each on a tenant claim, then a forbid of destructive tools, which
// reads the arguments too when args says so.
func policiesOf(n int, args bool) string {
	var b strings.Builder
	for i := range n - 1 {
		fmt.Fprintf(&b, "permit (principal, action == MCP::Action::\"call\", resource == MCP::Tool::\"tool%d\")\n"+
			"when { principal.claims has tenant && principal.claims.tenant == \"acme\" && principal.scopes.contains(\"issues:read\") };\n", i)
	}
	if args {
		b.WriteString("forbid (principal, action, resource) when { resource.destructive || resource has arguments && resource.arguments has force } unless { principal.scopes.contains(\"repo:admin\") };\n")
	} else {
		b.WriteString("forbid (principal, action, resource) when { resource.destructive } unless { principal.scopes.contains(\"repo:admin\") };\n")
	}
	return b.String()
}

// BenchmarkCheck is one decision of a call, by 1, 10 and 100 policies in
// force (the tool called is permitted by the last permit; Cedar evaluates
// every policy in any case): without arguments, with arguments a policy
// reads, and with arguments no policy reads (which are not converted).
// Reproduce with:
//
//	cd wrap/authz/cedarauthz && go test -run '^$' -bench BenchmarkCheck -benchmem
func BenchmarkCheck(b *testing.B) {
	const argsJSON = `{"repo":"acme/site","state":"open","limit":20}`
	caller := authz.Caller{Subject: "alice", Scopes: []string{"issues:read"}, Claims: map[string]any{"tenant": "acme", "roles": []any{"dev"}}}
	for _, n := range []int{1, 10, 100} {
		for _, c := range []struct {
			name  string
			args  string
			reads bool
		}{{"no-arguments", "", true}, {"arguments", argsJSON, true}, {"arguments-unread", argsJSON, false}} {
			b.Run(fmt.Sprintf("policies=%d/%s", n, c.name), func(b *testing.B) {
				p := load(b, policiesOf(n, c.reads))
				tool := fmt.Sprintf("tool%d", max(n-2, 0))
				r := authz.Request{Method: "tools/call", Name: tool, Annotations: authz.Annotations{Known: true, ReadOnly: true}}
				if c.args != "" {
					r.Arguments = json.RawMessage(c.args)
				}
				want := n > 1
				if err := p.Check(context.Background(), caller, r); (err == nil) != want {
					b.Fatalf("allowed %v (%v), want %v", err == nil, err, want)
				}
				ctx := context.Background()
				b.ReportAllocs()
				for b.Loop() {
					_ = p.Check(ctx, caller, r)
				}
			})
		}
	}
}
