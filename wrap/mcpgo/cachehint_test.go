package mcpgo_test

import (
	"context"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpwrap/mcpwrap/internal/adaptercases"
	"github.com/mcpwrap/mcpwrap/internal/testserver"
)

// TestFilteredListsAreNeverPublicOnMCPGo: a server configured with public
// cache hints (WithCacheHints, WithMethodCacheHints) sent its lists, which
// the policy filters per caller, and its resources, which it reads only to
// some, marked cacheScope public with its TTL, so a shared cache could
// serve one caller's list or resource to another. They are now private,
// with the server's TTL, and Attach warns once; a legacy client's results
// carry no hints, as before.
func TestFilteredListsAreNeverPublicOnMCPGo(t *testing.T) {
	d := newDBServer(t, adaptercases.CompletionPolicy(), server.WithCacheHints(60000, mcp.CacheScopePublic),
		server.WithMethodCacheHints(mcp.MethodPromptsList, 30000, mcp.CacheScopePublic))
	warns, _ := d.logs.Find("level", "WARN")
	var hint []string
	for _, w := range warns {
		if m, _ := w["msg"].(string); strings.Contains(m, "cache hints") {
			hint = append(hint, m)
		}
	}
	if len(hint) != 1 || !strings.Contains(hint[0], "tools/list, prompts/list, resources/list, resources/templates/list, resources/read public") {
		t.Errorf("Attach warned %q of the public cache hints", hint)
	}
	for _, stateless := range []bool{false, true} {
		t.Run(map[bool]string{false: "stateful", true: "stateless"}[stateless], func(t *testing.T) {
			url := d.serve(t, stateless)
			for _, c := range []struct {
				name string
				opts []client.ClientOption
			}{{"2026-07-28", nil}, {"2025-11-25", []client.ClientOption{client.WithProtocolVersion("2025-11-25")}}} {
				cl := testserver.ConnectAs(t, url, "reader", c.opts...)
				ctx := context.Background()
				prompts, err := cl.ListPrompts(ctx, mcp.ListPromptsRequest{})
				if err != nil {
					t.Fatal(err)
				}
				templates, err := cl.ListResourceTemplates(ctx, mcp.ListResourceTemplatesRequest{})
				if err != nil {
					t.Fatal(err)
				}
				read, err := cl.ReadResource(ctx, mcp.ReadResourceRequest{Params: mcp.ReadResourceParams{URI: "db://orders/tables"}})
				if err != nil {
					t.Fatal(err)
				}
				for _, r := range []struct {
					list string
					got  mcp.CacheableResult
					ttl  int64
				}{{"prompts/list", prompts.CacheableResult, 30000}, {"resources/templates/list", templates.CacheableResult, 60000},
					{"resources/read", read.CacheableResult, 60000}} {
					ttl, set := r.got.TTL()
					modern := c.name == "2026-07-28" && prompts.ResultType != ""
					switch {
					case modern && (r.got.CacheScope != mcp.CacheScopePrivate || ttl != r.ttl):
						t.Errorf("%s client: %s is cached %q for %d ms, want private for %d", c.name, r.list, r.got.CacheScope, ttl, r.ttl)
					case !modern && (set || r.got.CacheScope != ""):
						t.Errorf("%s client: %s carries hints %q %d", c.name, r.list, r.got.CacheScope, ttl)
					}
				}
				if c.name == "2026-07-28" && prompts.ResultType == "" {
					t.Errorf("the client did not speak 2026-07-28")
				}
			}
		})
	}
}
