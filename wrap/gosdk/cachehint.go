package gosdk

import (
	"context"
	"log/slog"
	"strconv"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrap/mcpwrap/internal/obs"
)

// cacheHints keeps the lists a policy filters per caller, and the
// resources it reads only to some, out of shared caches (SEP-2549). go-sdk
// gives every list and read result a cacheScope, "public" unless the
// handler or ServerOptions.SetCacheable (called per request, before the
// middleware sees the result) says otherwise, so a shared cache may serve
// one caller's list or resource to another. The copy the middleware sends
// is "private", keeping the TTL; the first time a server's own choice said
// "public" with a TTL (go-sdk's default is TTL 0, always revalidate) one
// warning says so: go-sdk's options cannot be read at Attach.
type cacheHints struct{ warned atomic.Bool }

func (h *cacheHints) private(ctx context.Context, o *obs.Observer, method string, c *mcp.Cacheable) {
	if c.CacheScope == "public" && c.TTLMs > 0 && o != nil && !h.warned.Swap(true) {
		o.Log(ctx, slog.LevelWarn, "authorization: the server marks "+method+" cacheScope public (ttlMs "+strconv.Itoa(c.TTLMs)+
			"), but the policy decides lists and reads per caller: they are sent with cacheScope private")
	}
	c.CacheScope = "private"
}

// privateRead is a resources/read result as private sends it: a copy, since
// the handler may hand the same result to every caller.
func (h *cacheHints) privateRead(ctx context.Context, o *obs.Observer, res mcp.Result) mcp.Result {
	r, ok := res.(*mcp.ReadResourceResult)
	if !ok || r == nil {
		return res
	}
	cp := *r
	h.private(ctx, o, "resources/read", &cp.Cacheable)
	return &cp
}
