package gosdk_test

import (
	"context"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrap/mcpwrap/wrap/authz"
)

// TestPanickingCheckIsAnsweredAsUnknown: a Policy.Check that panics hides
// what it was asked about, on go-sdk as on mcp-go (whose list filter,
// asked before a tools/call, can only hide): the call gets go-sdk's own
// unknown-name answer, not isError "the authorization check failed", the
// handler does not run, and the log line says decision=hidden
// reason=check_panic.
func TestPanickingCheckIsAnsweredAsUnknown(t *testing.T) {
	p := goPolicy()
	p.Check = func(_ context.Context, _ authz.Caller, r authz.Request) error {
		if !r.Listing && (r.Name == "list_issues" || r.Name == "triage") {
			panic("a bug in the check")
		}
		return nil
	}
	as := newAuthzServer(t, p)
	cs := connectAs(t, as.serve(t, false), "reader", nil)
	_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "list_issues"})
	_, unknown := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "no_such_tool"})
	if err == nil || unknown == nil || err.Error() != strings.ReplaceAll(unknown.Error(), "no_such_tool", "list_issues") {
		t.Fatalf("tools/call answered %v, an unknown tool %v", err, unknown)
	}
	_, err = cs.GetPrompt(context.Background(), &mcp.GetPromptParams{Name: "triage"})
	_, unknown = cs.GetPrompt(context.Background(), &mcp.GetPromptParams{Name: "nothing"})
	if err == nil || unknown == nil || err.Error() != strings.ReplaceAll(unknown.Error(), "nothing", "triage") {
		t.Fatalf("prompts/get answered %v, an unknown prompt %v", err, unknown)
	}
	if n := as.runs["list_issues"].Load(); n != 0 {
		t.Fatalf("list_issues ran %d times", n)
	}
	lines, err := as.logs.Find("tool", "list_issues")
	if err != nil || len(lines) != 1 {
		t.Fatalf("%d lines for the call (%v): %s", len(lines), err, as.logs.String())
	}
	if a, _ := lines[0]["authz"].(map[string]any); a["decision"] != "hidden" || a["reason"] != "check_panic" {
		t.Fatalf("authz of the call: %v", a)
	}
}

// TestDeniedResourceLineNamesTheURI: the line of a denied read names the
// resource: a URI whose scheme looks like a credential's key
// ("secret://deploy-keys") was logged as "secret:[REDACTED]".
func TestDeniedResourceLineNamesTheURI(t *testing.T) {
	p := goPolicy()
	p.Resources["secret://*"] = []string{"repo:admin"}
	as := newAuthzServer(t, p)
	as.s.AddResource(&mcp.Resource{URI: "secret://deploy-keys", Name: "deploy keys"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{}, nil
	})
	cs := connectAs(t, as.serve(t, false), "reader", nil)
	if _, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "secret://deploy-keys"}); err == nil {
		t.Fatal("the reader read the deploy keys")
	}
	if logs := as.logs.String(); !strings.Contains(logs, `"secret://deploy-keys"`) || strings.Contains(logs, "secret:[REDACTED]") {
		t.Fatalf("the denial's line does not name the resource: %s", logs)
	}
}
