package gosdk_test

import (
	"context"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrap/mcpwrap/internal/adaptercases"
)

// TestPanickingCheckIsAnsweredAsUnknown: a Policy.Check that panics hides
// what it was asked about, on go-sdk as on mcp-go (whose list filter,
// asked before a tools/call, can only hide): the call gets go-sdk's own
// unknown-name answer, not isError "the authorization check failed", the
// handler does not run, and the log line says decision=hidden
// reason=check_panic.
func TestPanickingCheckIsAnsweredAsUnknown(t *testing.T) {
	p := goPolicy()
	p.Check = adaptercases.PanickingCheck("list_issues", "triage")
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
	adaptercases.CheckHiddenByPanic(t, as.logs, "list_issues", as.runs["list_issues"])
}

// TestDeniedResourceLineNamesTheURI: the line of a denied read names the
// resource: a URI whose scheme looks like a credential's key
// ("secret://deploy-keys") was logged as "secret:[REDACTED]".
func TestDeniedResourceLineNamesTheURI(t *testing.T) {
	p := goPolicy()
	p.Resources["secret://*"] = []string{"repo:admin"}
	as := newAuthzServer(t, p)
	as.s.AddResource(&mcp.Resource{URI: adaptercases.SecretURI, Name: "deploy keys"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{}, nil
	})
	cs := connectAs(t, as.serve(t, false), "reader", nil)
	_, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: adaptercases.SecretURI})
	adaptercases.CheckDeniedLineNamesURI(t, err, as.logs)
}
