package wrap_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/internal/logbuf"
	"github.com/mcpwrap/mcpwrap/internal/testserver"
	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/mcpgo"
)

// TestTimedCallsShareWorkersAndLateEndsAreLogged runs many concurrent calls
// with a timeout — quick ones, and ones whose handler ignores its context —
// through the recycled goroutines: every quick call gets its own result,
// every hanging one a timeout on time, and each hanging handler, once
// released, leaves one "finished after its call was answered" line with its
// call id.
func TestTimedCallsShareWorkersAndLateEndsAreLogged(t *testing.T) {
	var logs logbuf.Buffer
	release := make(chan struct{})
	s := server.NewMCPServer("t", "1.0.0", attached(wrap.New(wrap.WithLogger(logs.Logger()),
		// Quick calls also run on the workers; their timeout only has to
		// outlast a loaded machine.
		wrap.WithTimeout(30*time.Second), wrap.ForTool("hang", wrap.WithTimeout(200*time.Millisecond)))))
	s.AddTool(mcp.NewTool("echo", readOnly), func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText(req.GetString("v", "")), nil
	})
	s.AddTool(mcp.NewTool("hang", readOnly), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		<-release
		return nil, errs.New(errs.NotFound, "gone")
	})
	conn := testserver.StartHTTP(t, s)
	const quick, hanging = 40, 8
	var wg sync.WaitGroup
	failures := make(chan string, quick+hanging)
	ids := make(chan string, hanging)
	for i := range quick {
		wg.Go(func() {
			v := strings.Repeat("x", i)
			res, err := conn.Call(t.Context(), "echo", map[string]any{"v": v})
			if err != nil || res.IsError || firstText(res) != v {
				failures <- "echo got " + firstText(res)
			}
		})
	}
	for range hanging {
		wg.Go(func() {
			start := time.Now()
			res, err := conn.Call(t.Context(), "hang", nil)
			info, _ := mcpgo.InfoOf(res)
			if err != nil || info.Code != "timeout" || time.Since(start) > 10*time.Second {
				failures <- "hang: " + info.Code
				return
			}
			ids <- info.CallID
		})
	}
	wg.Wait()
	close(failures)
	for f := range failures {
		t.Error(f)
	}
	close(release)
	close(ids)
	want := map[string]bool{}
	for id := range ids {
		want[id] = true
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		lines, err := logs.Find("msg", "tool finished after its call was answered; result dropped")
		if err != nil {
			t.Fatal(err)
		}
		got := 0
		for _, l := range lines {
			if want[l["call_id"].(string)] && strings.Contains(l["cause"].(string), "gone") {
				got++
			}
		}
		if got == len(want) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d late lines for %d abandoned calls: %v", got, len(want), lines)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
