package wrap_test

import (
	"context"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpwrap/mcpwrap/internal/logbuf"
	"github.com/mcpwrap/mcpwrap/internal/testserver"
	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/authz"
	"github.com/mcpwrap/mcpwrap/wrap/mcpgo"
)

// slowUser accepts every confirmation, the first one after wait (on the
// server's clock).
type slowUser struct {
	clock *atomic.Int64 // the server's time, Unix nanoseconds
	wait  time.Duration
	asked atomic.Int32
}

func (u *slowUser) Elicit(context.Context, mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	if u.asked.Add(1) == 1 {
		u.clock.Add(int64(u.wait))
	}
	return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionAccept,
		Content: map[string]any{"confirm": true}}}, nil
}

// TestExpiredConfirmationIsAskedAgain: an answer to a confirmation that
// comes back after the state's ten minutes does not run the tool: the
// user is asked again, and the tool runs on the answer to that question.
func TestExpiredConfirmationIsAskedAgain(t *testing.T) {
	for _, wait := range []time.Duration{time.Minute, 11 * time.Minute} {
		t.Run(wait.String(), func(t *testing.T) {
			var clock atomic.Int64
			clock.Store(time.Now().UnixNano())
			logs := &logbuf.Buffer{}
			s := server.NewMCPServer("files", "1.0.0")
			var runs atomic.Int32
			s.AddTool(mcp.NewTool("wipe"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				runs.Add(1)
				return mcp.NewToolResultText("wiped"), nil
			})
			w := wrap.New(wrap.WithLogger(logs.Logger()), wrap.WithAuthorization(authz.Policy{Public: []string{"wipe"},
				Confirm: authz.Confirm{Tools: []string{"wipe"}}}))
			wrap.SetStateClock(w, func() time.Time { return time.Unix(0, clock.Load()) })
			mcpgo.Attach(s, w)
			url, stop, err := testserver.Listen(s)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(stop)
			u := &slowUser{clock: &clock, wait: wait}
			res, err := testserver.Connect(t, url, nil, client.WithElicitationHandler(u)).CallTool(context.Background(),
				mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "wipe"}})
			if err != nil || res.IsError {
				t.Fatalf("answered %+v, %v", res, err)
			}
			lines, _ := logs.Find("tool", "wipe")
			var facts []string
			for _, l := range lines {
				a := l["authz"].(map[string]any)
				f := l["outcome"].(string) + " " + a["decision"].(string)
				if r, ok := a["reason"].(string); ok {
					f += "/" + r
				}
				facts = append(facts, f)
			}
			want := []string{"input_required asked", "success confirmed"}
			if wait > 10*time.Minute {
				want = []string{"input_required asked", "input_required asked/state_expired", "success confirmed"}
			}
			if runs.Load() != 1 || !slices.Equal(facts, want) {
				t.Fatalf("ran %d times, log lines %q; want once, %q", runs.Load(), facts, want)
			}
		})
	}
}
