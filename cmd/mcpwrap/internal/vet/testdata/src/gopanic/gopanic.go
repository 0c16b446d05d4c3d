package gopanic

import (
	"context"
	"log"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	gosdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/sync/errgroup"
)

func work() {}

func background() { work() }

func safe() {
	defer recoverAndLog()
	work()
}

func recoverAndLog() {
	if v := recover(); v != nil {
		log.Printf("panic: %v", v)
	}
}

func Register(s *server.MCPServer, g *gosdk.Server) {
	s.AddTool(mcp.NewTool("spawn"), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		go func() { // want `gopanic: tool "spawn" starts a goroutine without a deferred recover`
			work()
		}()
		go background() // want `gopanic: tool "spawn" starts a goroutine`
		var eg errgroup.Group
		eg.Go(func() error { work(); return nil }) // want `gopanic: tool "spawn" starts Group.Go`
		var wg sync.WaitGroup
		wg.Go(work) // want `gopanic: tool "spawn" starts WaitGroup.Go`
		// Clean look-alikes: goroutines that recover.
		go func() {
			defer func() {
				if v := recover(); v != nil {
					log.Printf("panic: %v", v)
				}
			}()
			work()
		}()
		go safe()
		return mcp.NewToolResultText("ok"), nil
	})
	g.AddPrompt(&gosdk.Prompt{Name: "p"}, func(ctx context.Context, req *gosdk.GetPromptRequest) (*gosdk.GetPromptResult, error) {
		go work() // want `gopanic: prompt "p" starts a goroutine`
		return &gosdk.GetPromptResult{}, nil
	})
}
