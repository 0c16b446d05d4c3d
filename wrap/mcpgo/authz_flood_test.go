package mcpgo_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpwrap/mcpwrap/internal/testserver"
)

// TestMadeUpNamesCannotFloodTheLog: a client calling made-up tools,
// prompts and resource URIs (some of them URIs a resource template
// serves) made the server warn "no policy declares …" per name: 1 200
// requests wrote 300 such lines. The warnings name what the server
// registered and the policy forgot, each once: the tool, the prompt, the
// resource, and the template (mcp-go does not say which template serves a
// URI, so one line stands for its templates).
func TestMadeUpNamesCannotFloodTheLog(t *testing.T) {
	ps := newPolicyServer(t, issuesPolicy())
	ps.s.AddPrompt(mcp.NewPrompt("draft"), func(context.Context, mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return mcp.NewGetPromptResult("draft", nil), nil
	})
	ps.s.AddResource(mcp.NewResource("notes://today", "today"), func(context.Context, mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
		return nil, nil
	})
	ps.s.AddResourceTemplate(mcp.NewResourceTemplate("users://{id}", "user"), func(context.Context, mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
		return nil, nil
	})
	cl := testserver.ConnectAs(t, ps.serve(t), "admin")
	ctx := context.Background()
	const each = 300
	for i := range each {
		if _, err := cl.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: fmt.Sprintf("made_up_%d", i)}}); err == nil {
			t.Fatal("a made-up tool answered")
		}
		if _, err := cl.GetPrompt(ctx, mcp.GetPromptRequest{Params: mcp.GetPromptParams{Name: fmt.Sprintf("made_up_%d", i)}}); err == nil {
			t.Fatal("a made-up prompt answered")
		}
		if _, err := cl.ReadResource(ctx, mcp.ReadResourceRequest{Params: mcp.ReadResourceParams{URI: fmt.Sprintf("made-up://%d", i)}}); err == nil {
			t.Fatal("a made-up URI answered")
		}
		if _, err := cl.ReadResource(ctx, mcp.ReadResourceRequest{Params: mcp.ReadResourceParams{URI: fmt.Sprintf("users://%d", i)}}); err == nil {
			t.Fatal("an undeclared template's URI answered")
		}
	}
	for _, get := range []func() error{
		func() error {
			_, err := cl.GetPrompt(ctx, mcp.GetPromptRequest{Params: mcp.GetPromptParams{Name: "draft"}})
			return err
		},
		func() error {
			_, err := cl.ReadResource(ctx, mcp.ReadResourceRequest{Params: mcp.ReadResourceParams{URI: "notes://today"}})
			return err
		},
	} {
		if get() == nil {
			t.Fatal("an undeclared registration answered")
		}
	}
	warned := warnings(ps.logs.String())
	for _, want := range []string{"tools/call forgotten", "prompts/get draft", "resources/read notes://today", "URIs a resource template serves"} {
		if n := strings.Count(strings.Join(warned, "\n"), want); n != 1 {
			t.Errorf("%d warnings name %q, want 1", n, want)
		}
	}
	if len(warned) > 4 {
		t.Fatalf("%d warnings after %d requests:\n%s", len(warned), 4*each, strings.Join(warned, "\n"))
	}
	if strings.Contains(strings.Join(warned, "\n"), "made") {
		t.Fatalf("a warning names a made-up name:\n%s", strings.Join(warned, "\n"))
	}
}

// warnings are the log's "no policy declares" lines.
func warnings(logs string) []string {
	var out []string
	for l := range strings.Lines(logs) {
		if strings.Contains(l, "no policy declares") {
			out = append(out, strings.TrimSpace(l))
		}
	}
	return out
}
