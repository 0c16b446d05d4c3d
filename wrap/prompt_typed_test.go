package wrap_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpwrap/mcpwrap/internal/logbuf"
	"github.com/mcpwrap/mcpwrap/internal/testserver"
	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/mcpgo"
)

type summaryArgs struct {
	Topic string `json:"topic" validate:"required" description:"What to summarise"`
	Style string `json:"style" validate:"omitempty,oneof=short long" description:"short or long"`
}

// TestTypedPrompt checks that a typed prompt advertises its struct's
// arguments and answers bad ones with -32602 naming each, over HTTP.
func TestTypedPrompt(t *testing.T) {
	w := wrap.New(wrap.WithLogger((&logbuf.Buffer{}).Logger()), wrap.WithTimeout(time.Second))
	s := server.NewMCPServer("notes", "1.0.0", attached(w))
	called := 0
	s.AddPrompts(mcpgo.TypedPrompt(mcp.NewPrompt("summary"),
		func(_ context.Context, _ mcp.GetPromptRequest, a summaryArgs) (*mcp.GetPromptResult, error) {
			called++
			return mcp.NewGetPromptResult("summary", []mcp.PromptMessage{
				mcp.NewPromptMessage(mcp.RoleUser, mcp.NewTextContent("Summarise "+a.Topic+" ("+a.Style+")"))}), nil
		}))
	conn := testserver.StartHTTP(t, s, client.WithProtocolVersion("2025-11-25"))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	list, err := conn.Client.ListPrompts(ctx, mcp.ListPromptsRequest{})
	if err != nil || len(list.Prompts) != 1 {
		t.Fatalf("list = %v, %v", list, err)
	}
	want := []mcp.PromptArgument{
		{Name: "style", Description: "short or long"},
		{Name: "topic", Description: "What to summarise", Required: true},
	}
	if got := list.Prompts[0].Arguments; !slices.Equal(got, want) {
		t.Errorf("arguments = %+v, want %+v", got, want)
	}

	for _, c := range []struct {
		name string
		args map[string]string
		says string
	}{
		{"missing", map[string]string{"style": "short"}, `parameter "topic" is required`},
		{"not one of", map[string]string{"topic": "tides", "style": "epic"}, `parameter "style" must be one of`},
		{"unknown", map[string]string{"topic": "tides", "tpoic": "x"}, `unknown parameter "tpoic"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			conn.Wire.Reset()
			_, err := conn.Client.GetPrompt(ctx, mcp.GetPromptRequest{Params: mcp.GetPromptParams{Name: "summary", Arguments: c.args}})
			if err == nil {
				t.Fatal("bad arguments accepted")
			}
			checkError(t, lastError(t, conn.Wire), mcp.INVALID_PARAMS, c.says)
		})
	}
	if called != 0 {
		t.Errorf("the handler ran %d times on bad arguments", called)
	}
	res, err := conn.Client.GetPrompt(ctx, mcp.GetPromptRequest{Params: mcp.GetPromptParams{Name: "summary",
		Arguments: map[string]string{"topic": "tides", "style": "long"}}})
	if err != nil || len(res.Messages) != 1 || res.Messages[0].Content.(mcp.TextContent).Text != "Summarise tides (long)" {
		t.Fatalf("get = %+v, %v", res, err)
	}
}
