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
// tool each on a tenant claim, then a forbid of destructive tools.
func policiesOf(n int) string {
	var b strings.Builder
	for i := range n - 1 {
		fmt.Fprintf(&b, "permit (principal, action == MCP::Action::\"call\", resource == MCP::Tool::\"tool%d\")\n"+
			"when { principal.claims has tenant && principal.claims.tenant == \"acme\" && principal.scopes.contains(\"issues:read\") };\n", i)
	}
	b.WriteString("forbid (principal, action, resource) when { resource.destructive } unless { principal.scopes.contains(\"repo:admin\") };\n")
	return b.String()
}

// BenchmarkCheck is one decision of a call with arguments, by 1, 10 and
// 100 policies in force (the tool called is permitted by the last permit,
// so every policy is evaluated; Cedar evaluates them all in any case).
// Reproduce with:
//
//	cd wrap/authz/cedarauthz && go test -run '^$' -bench BenchmarkCheck -benchmem
func BenchmarkCheck(b *testing.B) {
	caller := authz.Caller{Subject: "alice", Scopes: []string{"issues:read"}, Claims: map[string]any{"tenant": "acme", "roles": []any{"dev"}}}
	for _, n := range []int{1, 10, 100} {
		for _, args := range []string{"", `{"repo":"acme/site","state":"open","limit":20}`} {
			name := fmt.Sprintf("policies=%d", n)
			if args == "" {
				name += "/no-arguments"
			} else {
				name += "/arguments"
			}
			b.Run(name, func(b *testing.B) {
				p := load(b, policiesOf(n))
				tool := fmt.Sprintf("tool%d", max(n-2, 0))
				r := authz.Request{Method: "tools/call", Name: tool, Annotations: authz.Annotations{Known: true, ReadOnly: true}}
				if args != "" {
					r.Arguments = json.RawMessage(args)
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
