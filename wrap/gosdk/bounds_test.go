package gosdk_test

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrap/mcpwrap/internal/errmap"
	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/gosdk"
)

// hostile are argument payloads a model (or an attacker behind one) can
// send: every answer must stay within errmap.MaxResultBytes.
func hostile() []struct{ name, args string } {
	var keys strings.Builder
	keys.WriteString(`{"city":"P"`)
	for i := range 50000 {
		keys.WriteString(`,"k` + strconv.Itoa(i) + `":1`)
	}
	keys.WriteString(`}`)
	return []struct{ name, args string }{
		{"bad", `{"cty":"Rome","days":"three"}`},
		{"huge_string_1MiB", `{"city":"` + strings.Repeat("x", 1<<20) + `","days":"three"}`},
		{"huge_key_1MiB", `{"city":"P","days":1,"` + strings.Repeat("k", 1<<20) + `":1}`},
		{"unknown_keys_50000", keys.String()},
		{"deep_nesting", `{"city":"P","days":` + strings.Repeat("[", 900) + strings.Repeat("]", 900) + `}`},
		{"wrong_types_everywhere", `{"city":[1,2,3],"days":[` + strings.Repeat(`"x",`, 1000) + `"y"]}`},
	}
}

// TestHostileArgumentsBounded: whatever the arguments hold, a typed tool
// (go-sdk's mcp.AddTool or this package's AddTool) answers an
// invalid_argument result under 16 KiB, and the wrapped answer costs a
// small multiple of what go-sdk spends carrying the same payload to a tool
// that ignores it (ratios, not a timed assert).
func TestHostileArgumentsBounded(t *testing.T) {
	// A timeout far above what binding costs, even under -race: the
	// answer must come from the arguments, not the clock.
	w, _ := newWrapper(t, wrap.WithTimeout(30*time.Second))
	wrapped := connect(t, "memory", newServer(w), true)
	bare := connect(t, "memory", newServer(nil), false)
	for _, in := range hostile() {
		t.Run(in.name, func(t *testing.T) {
			base := cost(bare, "echo", in.args)
			for _, tool := range []string{"typed", "bound"} {
				var res *mcp.CallToolResult
				d := cost(wrapped, tool, in.args, &res)
				if res == nil {
					t.Fatalf("%s: no result", tool)
				}
				info, ok := gosdk.InfoOf(res)
				if !ok || info.Code != "invalid_argument" {
					t.Fatalf("%s: want invalid_argument, got %.300s", tool, toolText(res))
				}
				b, _ := json.Marshal(res)
				if len(b) > errmap.MaxResultBytes {
					t.Errorf("%s: answer is %d bytes, want at most %d", tool, len(b), errmap.MaxResultBytes)
				}
				ratio := float64(d) / float64(max(base, time.Microsecond))
				t.Logf("%s: %d bytes in %v, %.1f× go-sdk carrying the payload (%v)", tool, len(b), d, ratio, base)
				// go-sdk's own validation (tool "typed") is not ours to bound.
				if tool == "bound" && ratio > 10 && d > 100*time.Millisecond {
					t.Errorf("%s: %v, %.1f× the transport's cost", tool, d, ratio)
				}
			}
		})
	}
}

// cost returns the best of three calls' durations.
func cost(cs *mcp.ClientSession, tool, args string, out ...**mcp.CallToolResult) time.Duration {
	best := time.Hour
	for range 3 {
		start := time.Now()
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: json.RawMessage(args)})
		best = min(best, time.Since(start))
		if err == nil && len(out) > 0 {
			*out[0] = res
		}
	}
	return best
}
