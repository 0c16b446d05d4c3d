package gosdk_test

import (
	"context"
	"encoding/json"
	"runtime"
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
// send: every answer must stay within errmap.MaxResultBytes. The large
// ones are 16 times that cap or more; larger only make -race slower.
func hostile() []struct{ name, args string } {
	var keys strings.Builder
	keys.WriteString(`{"city":"P"`)
	for i := range 20000 {
		keys.WriteString(`,"k` + strconv.Itoa(i) + `":1`)
	}
	keys.WriteString(`}`)
	return []struct{ name, args string }{
		{"bad", `{"cty":"Rome","days":"three"}`},
		{"huge_string_256KiB", `{"city":"` + strings.Repeat("x", 1<<18) + `","days":"three"}`},
		{"huge_key_256KiB", `{"city":"P","days":1,"` + strings.Repeat("k", 1<<18) + `":1}`},
		{"unknown_keys_20000", keys.String()},
		{"deep_nesting", `{"city":"P","days":` + strings.Repeat("[", 900) + strings.Repeat("]", 900) + `}`},
		{"wrong_types_everywhere", `{"city":[1,2,3],"days":[` + strings.Repeat(`"x",`, 1000) + `"y"]}`},
	}
}

// TestHostileArgumentsBounded: whatever the arguments hold, a typed tool
// (go-sdk's mcp.AddTool or this package's AddTool) answers an
// invalid_argument result under 16 KiB, and the wrapped answer allocates a
// small multiple of what go-sdk allocates carrying the same payload to a
// tool that ignores it (bytes, not time: a loaded machine cannot fail it;
// BenchmarkHostileArguments gives the times).
func TestHostileArgumentsBounded(t *testing.T) {
	// A timeout far above what binding costs, even under -race: the
	// answer must come from the arguments, not the clock.
	w, _ := newWrapper(t, wrap.WithTimeout(30*time.Second))
	wrapped := connect(t, "memory", newServer(w), true)
	bare := connect(t, "memory", newServer(nil), false)
	for _, in := range hostile() {
		t.Run(in.name, func(t *testing.T) {
			base := allocated(bare, "echo", in.args)
			for _, tool := range []string{"typed", "bound"} {
				var res *mcp.CallToolResult
				n := allocated(wrapped, tool, in.args, &res)
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
				ratio := float64(n) / float64(max(base, 1))
				t.Logf("%s: %d bytes answered, %d allocated, %.1f× go-sdk carrying the payload (%d)", tool, len(b), n, ratio, base)
				// go-sdk's own validation (tool "typed") is not ours to
				// bound; a call allocates some 100 KiB whatever it carries.
				if tool == "bound" && ratio > 10 && n > 1<<20 {
					t.Errorf("%s: %d bytes allocated, %.1f× the transport's %d", tool, n, ratio, base)
				}
			}
		})
	}
}

// allocated returns the bytes the process allocated during one call.
func allocated(cs *mcp.ClientSession, tool, args string, out ...**mcp.CallToolResult) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: json.RawMessage(args)})
	runtime.ReadMemStats(&after)
	if err == nil && len(out) > 0 {
		*out[0] = res
	}
	return after.TotalAlloc - before.TotalAlloc
}

// BenchmarkHostileArguments times the wrapped "bound" tool against go-sdk
// carrying the same payload to a tool that ignores it ("bare"), for each
// payload of hostile().
func BenchmarkHostileArguments(b *testing.B) {
	w, _ := newWrapper(b, wrap.WithTimeout(30*time.Second))
	wrapped := connect(b, "memory", newServer(w), true)
	bare := connect(b, "memory", newServer(nil), false)
	for _, in := range hostile() {
		for _, c := range []struct {
			name, tool string
			cs         *mcp.ClientSession
		}{{"bare", "echo", bare}, {"bound", "bound", wrapped}} {
			b.Run(in.name+"/"+c.name, func(b *testing.B) {
				b.ReportAllocs()
				params := &mcp.CallToolParams{Name: c.tool, Arguments: json.RawMessage(in.args)}
				for b.Loop() {
					if _, err := c.cs.CallTool(context.Background(), params); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
