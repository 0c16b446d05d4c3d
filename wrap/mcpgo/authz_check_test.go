package mcpgo_test

import (
	"context"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpwrap/mcpwrap/internal/adaptercases"
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
	p.Check = adaptercases.PanickingCheck("list_issues", "repo://acme/readme")
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
	adaptercases.CheckHiddenByPanic(t, ps.logs, "list_issues", ps.runs["list_issues"])
}

// TestDeniedResourceLineNamesTheURI: the line of a denied read names the
// resource: a URI whose scheme looks like a credential's key
// ("secret://deploy-keys") was logged as "secret:[REDACTED]".
func TestDeniedResourceLineNamesTheURI(t *testing.T) {
	p := issuesPolicy()
	p.Resources["secret://*"] = []string{"repo:admin"}
	ps := newPolicyServer(t, p)
	ps.s.AddResource(mcp.NewResource(adaptercases.SecretURI, "deploy keys"), func(context.Context, mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
		return nil, nil
	})
	cl := ps.connect(t, "reader")
	_, err := cl.ReadResource(context.Background(), mcp.ReadResourceRequest{Params: mcp.ReadResourceParams{URI: adaptercases.SecretURI}})
	adaptercases.CheckDeniedLineNamesURI(t, err, ps.logs)
}
