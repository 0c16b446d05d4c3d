package mcpgo_test

import (
	"context"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpwrap/mcpwrap/wrap/authz"
)

// TestPanickingCheckIsAnsweredAsUnknownOnMCPGo: a Policy.Check that
// panics hides what it was asked about, on mcp-go as on go-sdk: the call
// gets mcp-go's own unknown-name answer, the handler does not run, and the
// log line says decision=hidden reason=check_panic. mcp-go asks its list
// filter before a tools/call, where a panic can only hide, so a Check
// that panicked for the call alone was answered isError "the
// authorization check failed" and one that panicked for the list too as
// an unknown tool.
func TestPanickingCheckIsAnsweredAsUnknownOnMCPGo(t *testing.T) {
	p := issuesPolicy()
	p.Check = func(_ context.Context, _ authz.Caller, r authz.Request) error {
		if !r.Listing && (r.Name == "list_issues" || r.Name == "repo://acme/readme") {
			panic("a bug in the check")
		}
		return nil
	}
	ps := newPolicyServer(t, p)
	cl := ps.connect(t, "reader")
	hidden := rpcError(t, cl, "list_issues")
	if want := strings.ReplaceAll(rpcError(t, cl, "no_such_tool"), "no_such_tool", "list_issues"); hidden != want {
		t.Fatalf("tools/call answered %q, want %q", hidden, want)
	}
	_, hiddenRes := cl.ReadResource(context.Background(), mcp.ReadResourceRequest{Params: mcp.ReadResourceParams{URI: "repo://acme/readme"}})
	_, unknownRes := cl.ReadResource(context.Background(), mcp.ReadResourceRequest{Params: mcp.ReadResourceParams{URI: "repo://acme/nothing"}})
	if hiddenRes == nil || unknownRes == nil || hiddenRes.Error() != strings.ReplaceAll(unknownRes.Error(), "repo://acme/nothing", "repo://acme/readme") {
		t.Fatalf("resources/read answered %v, an unknown URI %v", hiddenRes, unknownRes)
	}
	if n := ps.runs["list_issues"].Load(); n != 0 {
		t.Fatalf("list_issues ran %d times", n)
	}
	lines, err := ps.logs.Find("tool", "list_issues")
	if err != nil || len(lines) != 1 {
		t.Fatalf("%d lines for the call (%v): %s", len(lines), err, ps.logs.String())
	}
	if a, _ := lines[0]["authz"].(map[string]any); a["decision"] != "hidden" || a["reason"] != "check_panic" {
		t.Fatalf("authz of the call: %v", a)
	}
}

// TestDeniedResourceLineNamesTheURI: the line of a denied read names the
// resource: a URI whose scheme looks like a credential's key
// ("secret://deploy-keys") was logged as "secret:[REDACTED]".
func TestDeniedResourceLineNamesTheURI(t *testing.T) {
	p := issuesPolicy()
	p.Resources["secret://*"] = []string{"repo:admin"}
	ps := newPolicyServer(t, p)
	ps.s.AddResource(mcp.NewResource("secret://deploy-keys", "deploy keys"), func(context.Context, mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
		return nil, nil
	})
	cl := ps.connect(t, "reader")
	if _, err := cl.ReadResource(context.Background(), mcp.ReadResourceRequest{Params: mcp.ReadResourceParams{URI: "secret://deploy-keys"}}); err == nil {
		t.Fatal("the reader read the deploy keys")
	}
	if logs := ps.logs.String(); !strings.Contains(logs, `"secret://deploy-keys"`) || strings.Contains(logs, "secret:[REDACTED]") {
		t.Fatalf("the denial's line does not name the resource: %s", logs)
	}
}
