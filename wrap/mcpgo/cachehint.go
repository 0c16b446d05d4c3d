package mcpgo

import (
	"context"
	"log/slog"
	"reflect"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpwrap/mcpwrap/internal/obs"
)

// decidedMethods are the cacheable results a policy decides per caller:
// the four lists it filters, and resources/read, which a shared cache must
// not hand to a caller who may not read the resource.
var decidedMethods = [...]mcp.MCPMethod{mcp.MethodToolsList, mcp.MethodPromptsList, mcp.MethodResourcesList,
	mcp.MethodResourcesTemplatesList, mcp.MethodResourcesRead}

// privateLists keeps the lists a policy filters, and the resources it
// reads, out of shared caches (SEP-2549): mcp-go stamps a 2026-07-28 list
// or read result with the cache hints the server configured
// (WithCacheHints, WithMethodCacheHints), and a "public" one tells a
// shared cache it may serve one caller's list (or a resource) to another.
// The hooks after each give the result the server's TTL and the scope
// "private" first, which mcp-go then leaves as it is; a legacy result
// carries no hints and is left alone. If the server's configuration said
// "public" for one of them, one warning says so at Attach.
//
// mcp-go offers no way to read that configuration, so this reads its
// unexported field cacheHints (a map from method to a struct of ttlMs and
// scope); TestFilteredListsAreNeverPublicOnMCPGo fails when an mcp-go
// upgrade renames or retypes it. The lists are made private all the same then, with a TTL of
// 0 (always revalidate), and nothing is warned of.
func privateLists(s *server.MCPServer, h *server.Hooks, o *obs.Observer) {
	ttl, public := configuredHints(s)
	if len(public) > 0 && o != nil {
		o.Log(context.Background(), slog.LevelWarn, "authorization: the server's cache hints mark "+strings.Join(public, ", ")+
			" public, but the policy decides them per caller: they are sent with cacheScope private")
	}
	private := func(ctx context.Context, method mcp.MCPMethod, r mcp.CacheHintSetter) {
		if info := server.RequestProtocolInfoFromContext(ctx); info != nil && info.Modern {
			r.SetCacheHints(ttl[method], mcp.CacheScopePrivate)
		}
	}
	h.AddAfterListTools(afterPrivate[mcp.ListToolsRequest, *mcp.ListToolsResult](private, mcp.MethodToolsList))
	h.AddAfterListPrompts(afterPrivate[mcp.ListPromptsRequest, *mcp.ListPromptsResult](private, mcp.MethodPromptsList))
	h.AddAfterListResources(afterPrivate[mcp.ListResourcesRequest, *mcp.ListResourcesResult](private, mcp.MethodResourcesList))
	h.AddAfterListResourceTemplates(afterPrivate[mcp.ListResourceTemplatesRequest, *mcp.ListResourceTemplatesResult](private,
		mcp.MethodResourcesTemplatesList))
	h.AddAfterReadResource(afterPrivate[mcp.ReadResourceRequest, *mcp.ReadResourceResult](private, mcp.MethodResourcesRead))
}

// configuredHints reads the TTL mcp-go would give each of decidedMethods,
// and which of them its configuration marks public, as its cacheHintsFor does: the
// method's own hints, else the server-wide ones, else TTL 0 private.
func configuredHints(s *server.MCPServer) (ttl map[mcp.MCPMethod]int64, public []string) {
	ttl = map[mcp.MCPMethod]int64{}
	f := reflect.ValueOf(s).Elem().FieldByName("cacheHints")
	if !hintsShape(f) {
		return ttl, nil
	}
	for _, m := range decidedMethods {
		v := f.MapIndex(reflect.ValueOf(m))
		if !v.IsValid() {
			v = f.MapIndex(reflect.ValueOf(mcp.MCPMethod("")))
		}
		if !v.IsValid() {
			continue
		}
		ttl[m] = v.Field(0).Int()
		if mcp.CacheScope(v.Field(1).String()) == mcp.CacheScopePublic {
			public = append(public, string(m))
		}
	}
	return ttl, public
}

// hintsShape reports whether f, the server's cacheHints, has the shape
// configuredHints reads: a map from a method to a TTL and a scope.
func hintsShape(f reflect.Value) bool {
	if !f.IsValid() || f.Kind() != reflect.Map || f.Type().Key() != reflect.TypeFor[mcp.MCPMethod]() {
		return false
	}
	et := f.Type().Elem()
	return et.Kind() == reflect.Struct && et.NumField() == 2 && et.Field(0).Type.Kind() == reflect.Int64 &&
		et.Field(1).Type == reflect.TypeFor[mcp.CacheScope]()
}

// afterPrivate is the after-hook of method that hands its result, when
// there is one, to private: one body for mcp-go's five hook types.
func afterPrivate[Q any, R interface {
	*P
	mcp.CacheHintSetter
}, P any](private func(context.Context, mcp.MCPMethod, mcp.CacheHintSetter), method mcp.MCPMethod) func(context.Context, any, *Q, R) {
	return func(ctx context.Context, _ any, _ *Q, res R) {
		if res != nil {
			private(ctx, method, res)
		}
	}
}
