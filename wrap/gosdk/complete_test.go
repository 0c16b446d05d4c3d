package gosdk_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrap/mcpwrap/internal/adaptercases"
	"github.com/mcpwrap/mcpwrap/internal/logbuf"
	"github.com/mcpwrap/mcpwrap/internal/rawrpc"
	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/authz"
	"github.com/mcpwrap/mcpwrap/wrap/gosdk"
)

// dbServer is a go-sdk server with what completion names: prompts and
// resource templates whose arguments its CompletionHandler completes with
// names (databases, secrets), counting its runs per prompt or template.
type dbServer struct {
	authzServer
	adaptercases.Completions
	reads atomic.Int32
}

func newDBServer(t *testing.T, p authz.Policy, setCacheable func(context.Context, mcp.Request, *mcp.Cacheable)) *dbServer {
	t.Helper()
	d := &dbServer{}
	d.logs = &logbuf.Buffer{}
	complete := func(_ context.Context, r *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
		name := r.Params.Ref.Name
		if r.Params.Ref.Type == "ref/resource" {
			name = r.Params.Ref.URI
		}
		values := d.Complete(name)
		if values == nil {
			values = []string{} // nothing for a name it does not know
		}
		return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: values}}, nil
	}
	opts := &mcp.ServerOptions{CompletionHandler: complete,
		SubscribeHandler: func(_ context.Context, r *mcp.SubscribeRequest) error {
			d.Count("subscribe " + r.Params.URI)
			return nil
		},
		UnsubscribeHandler: func(context.Context, *mcp.UnsubscribeRequest) error { return nil }}
	if setCacheable != nil {
		// ServerOptions.SetCacheable is go-sdk v1.8.0's; the floor, v1.7.0,
		// has only its default (public, no TTL).
		f := reflect.ValueOf(opts).Elem().FieldByName("SetCacheable")
		if !f.IsValid() {
			t.Skip("this go-sdk has no ServerOptions.SetCacheable (v1.8.0 has; scripts/sdkfloor.sh runs both)")
		}
		f.Set(reflect.ValueOf(setCacheable))
	}
	d.s = mcp.NewServer(&mcp.Implementation{Name: "db", Version: "1.0.0"}, opts)
	for _, name := range []string{"db_query", "secret_prompt"} {
		d.s.AddPrompt(&mcp.Prompt{Name: name, Arguments: []*mcp.PromptArgument{{Name: "database"}}}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{}, nil
		})
	}
	for _, tmpl := range []string{"db://{name}/tables", "secret://{key}"} {
		d.s.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: tmpl, Name: tmpl}, func(_ context.Context, r *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			d.reads.Add(1)
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: r.Params.URI, Text: "rows"}}}, nil
		})
	}
	gosdk.Attach(d.s, wrap.New(wrap.WithLogger(d.logs.Logger()), wrap.WithAuthorization(p)))
	return d
}

func promptRef(name string) *mcp.CompleteReference {
	return &mcp.CompleteReference{Type: "ref/prompt", Name: name}
}

func templateRef(uri string) *mcp.CompleteReference {
	return &mcp.CompleteReference{Type: "ref/resource", URI: uri}
}

func rawComplete(t *testing.T, url, token string, ref *mcp.CompleteReference) string {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 7, "method": "completion/complete",
		"params": map[string]any{"ref": ref, "argument": map[string]any{"name": "database", "value": ""}}})
	code, got := rawrpc.Post(t, url, token, body)
	if code != http.StatusOK {
		t.Fatalf("HTTP %d: %s", code, got)
	}
	return got
}

// TestGoSDKCompletionOfHiddenPromptOrTemplateIsAnUnknownNames: completion
// of a prompt or resource template the caller may not see ran the server's
// CompletionHandler and sent the caller its values (secret names); it is
// now answered byte for byte as a name the handler does not know, and the
// handler does not run. The caller who may see them still gets their
// values. Stateful and stateless, through go-sdk's client and raw.
func TestGoSDKCompletionOfHiddenPromptOrTemplateIsAnUnknownNames(t *testing.T) {
	for _, stateless := range []bool{false, true} {
		t.Run(map[bool]string{false: "stateful", true: "stateless"}[stateless], func(t *testing.T) {
			d := newDBServer(t, adaptercases.CompletionPolicy(), nil)
			url := d.serve(t, stateless)
			cs := map[string]*mcp.ClientSession{"reader": connectAs(t, url, "reader", nil), "admin": connectAs(t, url, "admin", nil)}
			complete := func(token string, ref *mcp.CompleteReference) string {
				t.Helper()
				res, err := cs[token].Complete(context.Background(), &mcp.CompleteParams{Ref: ref, Argument: mcp.CompleteParamsArgument{Name: "database"}})
				if err != nil {
					t.Fatal(err)
				}
				b, _ := json.Marshal(res)
				return string(b)
			}
			var raw func(string, *mcp.CompleteReference) string
			if stateless {
				raw = func(token string, ref *mcp.CompleteReference) string { return rawComplete(t, url, token, ref) }
			}
			adaptercases.CheckHiddenCompletionIsUnknown(t, promptRef, templateRef, complete, raw, &d.Completions)
		})
	}
}

// TestGoSDKCompletionWithoutHandlerIsGoSDKs: a server without a
// CompletionHandler answers every completion alike (go-sdk's method not
// found), a hidden prompt's too.
func TestGoSDKCompletionWithoutHandlerIsGoSDKs(t *testing.T) {
	as := newAuthzServer(t, goPolicy())
	url := as.serve(t, true)
	hidden := rawComplete(t, url, "reader", promptRef("secret_prompt"))
	if unknown := rawComplete(t, url, "reader", promptRef("triage")); hidden != unknown || !strings.Contains(hidden, `"error"`) {
		t.Fatalf("a hidden prompt's completion answered %s, a visible one's %s", hidden, unknown)
	}
}

// TestGoSDKTemplateKeyAuthorizesReads: a policy keyed by a template's text
// listed the template but refused every read of a URI it serves as
// unknown; the read is now allowed to the caller with the scopes and
// answered as unknown to the others, the handler not running for them.
func TestGoSDKTemplateKeyAuthorizesReads(t *testing.T) {
	for _, stateless := range []bool{false, true} {
		t.Run(map[bool]string{false: "stateful", true: "stateless"}[stateless], func(t *testing.T) {
			d := newDBServer(t, adaptercases.CompletionPolicy(), nil)
			url := d.serve(t, stateless)
			reader := connectAs(t, url, "reader", nil)
			ctx := context.Background()
			tl, err := reader.ListResourceTemplates(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			adaptercases.CheckTemplateKeyAuthorizesReads(t, adaptercases.TemplateServer{
				Listed: adaptercases.SortedNames(tl.ResourceTemplates, func(x *mcp.ResourceTemplate) string { return x.URITemplate }),
				Read: func(token, uri string) (int, error) {
					cs := reader
					if token != "reader" || uri == "nope://k" {
						// A session of its own: go-sdk v1.7.0's client closes
						// a stateless session on its 400.
						cs = connectAs(t, url, token, nil)
					}
					res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
					if err != nil {
						return 0, err
					}
					return len(res.Contents), nil
				},
				Reads: &d.reads, Logs: d.logs,
			})
		})
	}
}

// TestGoSDKFilteredListsAreNeverPublic: go-sdk marks every list and read
// cacheScope public unless SetCacheable says otherwise, and a server's
// SetCacheable may say public with a TTL, so a shared cache could serve
// one caller's filtered list, or a resource only some may read, to
// another. They are now private, keeping the TTL, with one warning for the
// server's public choice.
func TestGoSDKFilteredListsAreNeverPublic(t *testing.T) {
	for _, c := range []struct {
		name string
		set  func(context.Context, mcp.Request, *mcp.Cacheable)
		ttl  int
		warn bool
	}{
		{"go-sdk's default", nil, 0, false},
		{"SetCacheable public", func(_ context.Context, _ mcp.Request, c *mcp.Cacheable) { c.TTLMs, c.CacheScope = 60000, "public" }, 60000, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := newDBServer(t, adaptercases.CompletionPolicy(), c.set)
			for _, stateless := range []bool{false, true} {
				cs := connectAs(t, d.serve(t, stateless), "reader", nil)
				ctx := context.Background()
				for range 2 {
					p, err := cs.ListPrompts(ctx, nil)
					if err != nil {
						t.Fatal(err)
					}
					tl, err := cs.ListResourceTemplates(ctx, nil)
					if err != nil {
						t.Fatal(err)
					}
					tools, err := cs.ListTools(ctx, nil)
					if err != nil {
						t.Fatal(err)
					}
					read, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "db://orders/tables"})
					if err != nil {
						t.Fatal(err)
					}
					for list, got := range map[string]mcp.Cacheable{"prompts/list": p.Cacheable, "resources/templates/list": tl.Cacheable,
						"tools/list": tools.Cacheable, "resources/read": read.Cacheable} {
						if got.CacheScope != "private" || got.TTLMs != c.ttl {
							t.Errorf("stateless %v: %s is cached %q for %d ms, want private for %d", stateless, list, got.CacheScope, got.TTLMs, c.ttl)
						}
					}
				}
			}
			var warns int
			lines, _ := d.logs.Find("level", "WARN")
			for _, l := range lines {
				if m, _ := l["msg"].(string); strings.Contains(m, "cacheScope public") {
					warns++
				}
			}
			if want := map[bool]int{true: 1}[c.warn]; warns != want {
				t.Errorf("%d warnings of the public cache scope, want %d: %s", warns, want, d.logs.String())
			}
		})
	}
}

// TestGoSDKSubscribeFollowsThePolicy: a caller could subscribe to a
// resource it may not read (the server's SubscribeHandler ran for it) and
// was then sent its updates. Now resources/subscribe (protocol 2025-11-25,
// stateful) of such a URI is answered as a read of an unknown URI, and
// subscriptions/listen (2026-07-28, stateless) leaves it out; the handler
// does not run, and no update of it reaches the caller.
func TestGoSDKSubscribeFollowsThePolicy(t *testing.T) {
	for _, stateless := range []bool{false, true} {
		t.Run(map[bool]string{false: "stateful", true: "stateless"}[stateless], func(t *testing.T) {
			d := newDBServer(t, adaptercases.CompletionPolicy(), nil)
			updated := make(chan string, 8)
			reader := connectAs(t, d.serve(t, stateless), "reader", &mcp.ClientOptions{
				ResourceUpdatedHandler: func(_ context.Context, r *mcp.ResourceUpdatedNotificationRequest) { updated <- r.Params.URI },
			})
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if err := reader.Subscribe(ctx, &mcp.SubscribeParams{URI: "db://orders/tables"}); err != nil {
				t.Fatalf("subscribing to a URI the reader may read: %v", err)
			}
			hidden := reader.Subscribe(ctx, &mcp.SubscribeParams{URI: "secret://k"})
			unknown := reader.Subscribe(ctx, &mcp.SubscribeParams{URI: "nope://k"})
			if fmt.Sprint(hidden) != strings.ReplaceAll(fmt.Sprint(unknown), "nope://k", "secret://k") {
				t.Errorf("subscribing to a hidden URI answered %v, an unknown one %v", hidden, unknown)
			}
			t.Logf("hidden %v, unknown %v", hidden, unknown)
			if n := d.Runs("subscribe secret://k"); n != 0 {
				t.Errorf("the SubscribeHandler ran %d times for the hidden URI", n)
			}
			if n := d.Runs("subscribe db://orders/tables"); n != 1 {
				t.Errorf("the SubscribeHandler ran %d times for the allowed URI", n)
			}
			for _, uri := range []string{"secret://k", "db://orders/tables"} {
				if err := d.s.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: uri}); err != nil {
					t.Fatal(err)
				}
			}
			select {
			case got := <-updated:
				if got != "db://orders/tables" {
					t.Errorf("the reader was told of an update of %s", got)
				}
			case <-ctx.Done():
				t.Fatal("no update of the allowed URI reached the reader")
			}
		})
	}
}

// TestGoSDKCompletionInMemoryIsTheProcessOwners: over in-memory transports
// (as over stdio) the caller is the process owner, granted Policy.Local:
// completion follows that grant.
func TestGoSDKCompletionInMemoryIsTheProcessOwners(t *testing.T) {
	p := adaptercases.CompletionPolicy()
	p.Local = []string{"issues:read"}
	d := newDBServer(t, p, nil)
	cs := connect(t, "memory", d.s, true)
	for ref, want := range map[*mcp.CompleteReference]string{promptRef("secret_prompt"): `[]`, promptRef("db_query"): `["orders","users"]`,
		templateRef("secret://{key}"): `[]`, templateRef("db://{name}/tables"): `["orders","users"]`} {
		res, err := cs.Complete(context.Background(), &mcp.CompleteParams{Ref: ref, Argument: mcp.CompleteParamsArgument{Name: "database"}})
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := json.Marshal(res.Completion.Values); string(got) != want {
			t.Errorf("completing %v in memory: %s, want %s", *ref, got, want)
		}
	}
	if n := d.Runs("secret_prompt") + d.Runs("secret://{key}"); n != 0 {
		t.Errorf("the CompletionHandler ran %d times for what the process owner may not see", n)
	}
}
