package gosdk_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestMadeUpNamesCannotFloodTheLog: go-sdk hands the middleware every
// prompts/get and resources/read before it looks the name up, and a
// client naming made-up prompts and URIs (some of them URIs a resource
// template serves) made the server warn "no policy declares …" per name:
// 1 200 requests wrote 900 such lines. The warnings name what the server
// registered and the policy forgot, each once: the tool, the prompt, the
// resource and the template that serves the URIs.
func TestMadeUpNamesCannotFloodTheLog(t *testing.T) {
	as := newAuthzServer(t, goPolicy())
	as.s.AddPrompt(&mcp.Prompt{Name: "draft"}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{}, nil
	})
	as.s.AddResource(&mcp.Resource{URI: "notes://today", Name: "today"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{}, nil
	})
	as.s.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "users://{id}", Name: "user"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{}, nil
	})
	cs := connectAs(t, as.serve(t, false), "admin", nil)
	ctx := context.Background()
	const each = 300
	for i := range each {
		if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: fmt.Sprintf("made_up_%d", i)}); err == nil {
			t.Fatal("a made-up tool answered")
		}
		if _, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: fmt.Sprintf("made_up_%d", i)}); err == nil {
			t.Fatal("a made-up prompt answered")
		}
		if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: fmt.Sprintf("made-up://%d", i)}); err == nil {
			t.Fatal("a made-up URI answered")
		}
		if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: fmt.Sprintf("users://%d", i)}); err == nil {
			t.Fatal("an undeclared template's URI answered")
		}
	}
	if _, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "draft"}); err == nil {
		t.Fatal("the undeclared prompt answered")
	}
	if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "notes://today"}); err == nil {
		t.Fatal("the undeclared resource answered")
	}
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "forgotten"}); err == nil {
		t.Fatal("the undeclared tool answered")
	}
	var warned []string
	for l := range strings.Lines(as.logs.String()) {
		if strings.Contains(l, "no policy declares") {
			warned = append(warned, strings.TrimSpace(l))
		}
	}
	all := strings.Join(warned, "\n")
	for _, want := range []string{"tools/call forgotten", "prompts/get draft", "resources/read notes://today", "resources/read users://{id}"} {
		if n := strings.Count(all, want); n != 1 {
			t.Errorf("%d warnings name %q, want 1", n, want)
		}
	}
	if len(warned) > 4 || strings.Contains(all, "made") {
		t.Fatalf("%d warnings after %d requests:\n%s", len(warned), 4*each, all)
	}
}
