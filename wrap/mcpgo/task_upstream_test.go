package mcpgo_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpwrap/mcpwrap/internal/testserver"
)

// TestMCPGoStillCancelsTaskWithItsRequest pins what the adapter bridges
// (task.go's runTask): bare mcp-go v1.2.1 ends the context of a task's
// work as soon as the request that created it is answered, over
// streamable HTTP and stdio alike (HandleMessage cancels the request's
// context when it returns). On an mcp-go that fixes that (v1.6.0 does),
// this test fails: once go.mod's floor is such a version,
// context.WithoutCancel in runTask can go, and docs/upstream-hooks.md's
// paragraph on tasks with it. scripts/sdkfloor.sh runs it on its own on
// the newest mcp-go and says which way it went.
func TestMCPGoStillCancelsTaskWithItsRequest(t *testing.T) {
	for _, transport := range []string{"http", "stdio"} {
		t.Run(transport, func(t *testing.T) {
			s := server.NewMCPServer("bare", "1.0.0", server.WithTaskCapabilities(true, true, true))
			ended := make(chan error, 1)
			s.AddTaskTool(mcp.NewTool("slow", mcp.WithTaskSupport(mcp.TaskSupportRequired)),
				func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CreateTaskResult, error) {
					select {
					case <-ctx.Done():
						ended <- ctx.Err()
					case <-time.After(5 * time.Second):
						ended <- nil
					}
					return &mcp.CreateTaskResult{Content: []mcp.Content{mcp.NewTextContent("done")}}, nil
				})
			cl := taskClient(t, s, transport)
			if id := createdTaskID(t, callAsTask(t, cl, "slow", nil)); id == "" {
				t.Fatal("no task was created")
			}
			if err := <-ended; !errors.Is(err, context.Canceled) {
				t.Fatalf("the work's context ended with %v; mcp-go no longer cancels a task with its request: "+
					"remove the bridge in wrap/mcpgo/task.go (runTask) and its paragraph in docs/upstream-hooks.md", err)
			}
		})
	}
}

// taskClient serves s over transport ("http", "stateless", "stdio") and
// connects an mcp-go client speaking 2025-11-25, the protocol with
// tasks/list.
func taskClient(t *testing.T, s *server.MCPServer, transport string, headers ...map[string]string) *client.Client {
	t.Helper()
	legacy := client.WithProtocolVersion(mcp.ProtocolVersion20251125)
	switch transport {
	case "stdio":
		return testserver.StartStdio(t, s, legacy)
	case "stateless", "http":
		var h map[string]string
		if len(headers) > 0 {
			h = headers[0]
		}
		url := (&policyServer{s: s}).serve(t, server.WithStateLess(transport == "stateless"))
		return testserver.Connect(t, url, h, legacy)
	}
	t.Fatalf("no transport %q", transport)
	return nil
}

// TestBeforeCallHookChangesTheCall pins what the refusal of a task call
// rests on (task.go's refuse): on mcp-go v1.2.1, what a before-call hook
// changes in the request is what handleToolCall routes. When an upgrade
// hands the hook a copy, this fails, and so does every refusal test.
func TestBeforeCallHookChangesTheCall(t *testing.T) {
	hooks := &server.Hooks{}
	hooks.AddBeforeCallTool(func(_ context.Context, _ any, req *mcp.CallToolRequest) {
		req.Params.Name, req.Params.Task = "answer", nil
	})
	s := server.NewMCPServer("bare", "1.0.0", server.WithTaskCapabilities(true, true, true), server.WithHooks(hooks))
	s.AddTaskTool(mcp.NewTool("work", mcp.WithTaskSupport(mcp.TaskSupportRequired)),
		func(context.Context, mcp.CallToolRequest) (*mcp.CreateTaskResult, error) {
			return &mcp.CreateTaskResult{}, nil
		})
	s.AddTool(mcp.NewTool("answer"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("answered in place"), nil
	})
	resp := callAsTask(t, taskClient(t, s, "http"), "work", nil)
	res, err := mcp.ParseCallToolResult(&resp.Result)
	if err != nil || resultText(res.Content) != "answered in place" {
		t.Fatalf("answer %s %v: the hook's change did not reach mcp-go's routing", resp.Result, resp.Error)
	}
}
