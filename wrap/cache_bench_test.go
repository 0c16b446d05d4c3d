package wrap_test

import (
	"context"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/authz"
	"github.com/mcpwrap/mcpwrap/wrap/mcpgo"
)

// BenchmarkCache is a whole tools/call through mcp-go's HandleMessage to a
// read-only tool, in one run, the forms taking turns call by call so that
// a busy machine slows them alike (each timed on its second call in a
// row); it reports the median of each form (µs)
// and the ratios the cache promises:
//
//   - hit/uncached: a hit on a tool whose handler sleeps 1ms, over the same
//     call without the cache (≤ 0.1);
//   - hit/noop: a hit, over a no-op handler's call through the chain
//     without the cache (≤ 1.2);
//   - miss/uncached: a call to the 1ms tool with other arguments every
//     time (keyed, looked up, run and kept), over the same calls without
//     the cache (≤ 1.03);
//   - noop_miss/noop: the same on the no-op handler, where keying shows.
func BenchmarkCache(b *testing.B) {
	// Each handler makes its result, as handlers do: mcp-go writes into
	// the _meta of every result it sends at 2026-07-28 (its server info),
	// which a shared result would pay for once.
	sleep := func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		time.Sleep(time.Millisecond)
		return mcp.NewToolResultText("ok"), nil
	}
	noop := func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("ok"), nil
	}
	same := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search","arguments":{"q":"rome","days":3}}}`)
	distinct := func(i int) []byte {
		return []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search","arguments":{"q":"rome","days":` + strconv.Itoa(i) + `}}}`)
	}
	serverOf := func(h server.ToolHandlerFunc, opts ...wrap.Option) *server.MCPServer {
		s := server.NewMCPServer("bench", "1.0.0")
		mcpgo.Attach(s, wrap.New(opts...))
		s.AddTool(mcp.NewTool("search", mcp.WithReadOnlyHintAnnotation(true)), h)
		return s
	}
	cache := wrap.WithCache(wrap.Cache{})
	forms := []struct {
		name string
		s    *server.MCPServer
		msg  func(int) []byte
	}{
		{"uncached", serverOf(sleep), func(int) []byte { return same }},
		{"hit", serverOf(sleep, cache), func(int) []byte { return same }},
		{"distinct_uncached", serverOf(sleep), distinct},
		{"miss", serverOf(sleep, cache), distinct},
		{"noop", serverOf(noop), func(int) []byte { return same }},
		{"noop_miss", serverOf(noop, cache), distinct},
		{"noop_distinct", serverOf(noop), distinct},
	}
	// A verified caller: HandleMessage's requests look like HTTP ones
	// without a credential, which are not cached.
	ctx := authz.NewContext(context.Background(), authz.Caller{Subject: "alice"})
	times := make([][]time.Duration, len(forms))
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		for f, form := range forms {
			// Each form is timed on its second call in a row: the first
			// pays for waking up after the form before, which sleeps.
			for turn := range 2 {
				msg := form.msg(2*i + turn)
				start := time.Now()
				r, ok := form.s.HandleMessage(ctx, msg).(mcp.JSONRPCResponse)
				if turn == 1 {
					times[f] = append(times[f], time.Since(start))
				}
				if res, isRes := r.Result.(*mcp.CallToolResult); !ok || !isRes || res.IsError {
					b.Fatalf("%s: not a successful tool result: %#v", form.name, r.Result)
				}
			}
		}
	}
	med := make(map[string]float64, len(forms))
	for f, form := range forms {
		slices.Sort(times[f])
		med[form.name] = float64(times[f][len(times[f])/2].Nanoseconds()) / 1000
		b.ReportMetric(med[form.name], form.name+"_µs")
	}
	b.ReportMetric(med["hit"]/med["uncached"], "hit/uncached")
	b.ReportMetric(med["hit"]/med["noop"], "hit/noop")
	b.ReportMetric(med["miss"]/med["distinct_uncached"], "miss/uncached")
	b.ReportMetric(med["noop_miss"]/med["noop_distinct"], "noop_miss/noop")
}
