package gosdk_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestBarePanicKillsTheProcess shows why the adapter exists: a bare go-sdk
// v1.8.0 server (a child process over stdio) dies of a panic in any
// handler, and of a tool or prompt handler's (nil, nil); the same request to
// the wrapped child is answered and the next one too.
func TestBarePanicKillsTheProcess(t *testing.T) {
	t.Parallel() // its children mostly start and wait: it overlaps TestStdioServerSurvivesDeepRequests
	for _, c := range []struct {
		name string
		do   func(context.Context, *mcp.ClientSession) error
	}{
		{"raw tool panic", callErr("panic")},
		{"typed tool panic", callErr("typed_panic")},
		{"tool nil result", callErr("nil")},
		{"resource panic", func(ctx context.Context, cs *mcp.ClientSession) error {
			_, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "res://panic"})
			return err
		}},
		{"prompt panic", func(ctx context.Context, cs *mcp.ClientSession) error {
			_, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "prompt_panic"})
			return err
		}},
		{"prompt nil result", func(ctx context.Context, cs *mcp.ClientSession) error {
			_, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "prompt_nil"})
			return err
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, mode := range []string{"bare", "wrapped"} {
				cmd := exec.Command(os.Args[0], "-test.run=^$")
				cmd.Env = append(os.Environ(), "GOSDK_CHILD="+mode)
				var stderr strings.Builder
				cmd.Stderr = &stderr
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
				if err != nil {
					cancel()
					t.Fatal(err)
				}
				err = c.do(ctx, cs)
				_, next := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: json.RawMessage(`{}`)})
				_ = cs.Close()
				cancel()
				switch mode {
				case "bare":
					if err == nil || next == nil {
						t.Errorf("bare: the request or the next one was answered (%v, %v)", err, next)
					}
					if !strings.HasPrefix(stderr.String(), "panic: ") {
						t.Errorf("bare: the child did not die of a panic; stderr %.300s", stderr.String())
					}
					t.Logf("bare: client saw %v; child stderr starts %.60q", err, stderr.String())
				case "wrapped":
					if next != nil {
						t.Errorf("wrapped: the next call failed: %v", next)
					}
					if strings.Contains(stderr.String(), "goroutine ") && !strings.Contains(stderr.String(), `"stack"`) {
						t.Errorf("wrapped: the child crashed: %.300s", stderr.String())
					}
				}
			}
		})
	}
}

func callErr(name string) func(context.Context, *mcp.ClientSession) error {
	return func(ctx context.Context, cs *mcp.ClientSession) error {
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: json.RawMessage(`{"city":"Rome","days":3}`)})
		return err
	}
}
