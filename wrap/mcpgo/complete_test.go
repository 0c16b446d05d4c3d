package mcpgo_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpwrap/mcpwrap/internal/adaptercases"
	"github.com/mcpwrap/mcpwrap/internal/logbuf"
	"github.com/mcpwrap/mcpwrap/internal/rawrpc"
	"github.com/mcpwrap/mcpwrap/internal/testserver"
	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/authz"
	"github.com/mcpwrap/mcpwrap/wrap/mcpgo"
)

// dbServer is a server with what completion names: prompts and resource
// templates whose arguments it completes with names (databases, secrets)
// the caller may or may not see, counting each time its completion code
// runs, per prompt or template.
type dbServer struct {
	s    *server.MCPServer
	logs *logbuf.Buffer
	adaptercases.Completions
	reads atomic.Int32
}

type promptCompleter struct{ d *dbServer }

func (p promptCompleter) CompletePromptArgument(_ context.Context, name string, _ mcp.CompleteArgument, _ mcp.CompleteContext) (*mcp.Completion, error) {
	return &mcp.Completion{Values: p.d.Complete(name)}, nil
}

type resourceCompleter struct{ d *dbServer }

func (r resourceCompleter) CompleteResourceArgument(_ context.Context, uri string, _ mcp.CompleteArgument, _ mcp.CompleteContext) (*mcp.Completion, error) {
	return &mcp.Completion{Values: r.d.Complete(uri)}, nil
}

func newDBServer(t *testing.T, p authz.Policy, opts ...server.ServerOption) *dbServer {
	t.Helper()
	d := &dbServer{logs: &logbuf.Buffer{}}
	opts = append([]server.ServerOption{server.WithCompletions(), server.WithResourceCapabilities(false, true),
		server.WithPromptCompletionProvider(promptCompleter{d}), server.WithResourceCompletionProvider(resourceCompleter{d})}, opts...)
	d.s = server.NewMCPServer("db", "1.0.0", opts...)
	for _, name := range []string{"db_query", "secret_prompt"} {
		d.s.AddPrompt(mcp.NewPrompt(name, mcp.WithArgument("database")), func(context.Context, mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return mcp.NewGetPromptResult(name, nil), nil
		})
	}
	for _, tmpl := range []string{"db://{name}/tables", "secret://{key}"} {
		d.s.AddResourceTemplate(mcp.NewResourceTemplate(tmpl, tmpl), func(_ context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			d.reads.Add(1)
			return []mcp.ResourceContents{mcp.TextResourceContents{URI: req.Params.URI, Text: "rows"}}, nil
		})
	}
	mcpgo.Attach(d.s, wrap.New(wrap.WithLogger(d.logs.Logger()), wrap.WithAuthorization(p)))
	return d
}

func (d *dbServer) serve(t *testing.T, stateless bool) string {
	return (&policyServer{s: d.s}).serve(t, server.WithStateLess(stateless))
}

func promptRef(name string) any  { return mcp.PromptReference{Type: "ref/prompt", Name: name} }
func templateRef(uri string) any { return mcp.ResourceReference{Type: "ref/resource", URI: uri} }

func rawComplete(t *testing.T, url, token string, ref any) string {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 7, "method": "completion/complete",
		"params": map[string]any{"ref": ref, "argument": map[string]any{"name": "database", "value": ""}}})
	status, got := rawrpc.Post(t, url, token, body)
	if status == 0 {
		t.Fatal(got)
	}
	return strings.TrimSpace(got)
}

// TestCompletionOfHiddenPromptOrTemplateIsAnUnknownNames: completion of a
// prompt or resource template the caller may not see ran the server's
// completion code and sent the caller its values (secret names); it is now
// answered byte for byte as a name the server does not know, and the
// completion code does not run. The caller who may see them still gets
// their values. Stateful (protocol 2025-11-25) and stateless (2026-07-28
// through the client, and raw bytes).
func TestCompletionOfHiddenPromptOrTemplateIsAnUnknownNames(t *testing.T) {
	for _, stateless := range []bool{false, true} {
		t.Run(map[bool]string{false: "stateful", true: "stateless"}[stateless], func(t *testing.T) {
			d := newDBServer(t, adaptercases.CompletionPolicy())
			url := d.serve(t, stateless)
			cl := map[string]*client.Client{"reader": testserver.ConnectAs(t, url, "reader"), "admin": testserver.ConnectAs(t, url, "admin")}
			complete := func(token string, ref any) string {
				t.Helper()
				res, err := cl[token].Complete(context.Background(), mcp.CompleteRequest{Params: mcp.CompleteParams{Ref: ref,
					Argument: mcp.CompleteArgument{Name: "database"}}})
				if err != nil {
					t.Fatal(err)
				}
				b, _ := json.Marshal(res)
				return string(b)
			}
			var raw func(string, any) string
			if stateless {
				raw = func(token string, ref any) string { return rawComplete(t, url, token, ref) }
			}
			adaptercases.CheckHiddenCompletionIsUnknown(t, promptRef, templateRef, complete, raw, &d.Completions)
		})
	}
}

// TestCompletionTrickFields: completion is filtered through mcp-go's
// unexported provider fields; this fails when an mcp-go upgrade renames or
// retypes them (the hidden prompt's completion then runs the server's code).
func TestCompletionTrickFields(t *testing.T) {
	d := newDBServer(t, adaptercases.CompletionPolicy())
	if ok := mcpgo.AuthorizeCompletion(d.s, adaptercases.CompletionPolicy()); !ok {
		t.Fatal("mcp-go's completion provider fields were not found")
	}
	cl := testserver.ConnectAs(t, d.serve(t, false), "reader")
	if _, err := cl.Complete(context.Background(), mcp.CompleteRequest{Params: mcp.CompleteParams{Ref: promptRef("secret_prompt"),
		Argument: mcp.CompleteArgument{Name: "database"}}}); err != nil {
		t.Fatal(err)
	}
	if n := d.Runs("secret_prompt"); n != 0 {
		t.Fatalf("the hidden prompt's completion ran %d times", n)
	}
}

// TestTemplateKeyAuthorizesReadsOnMCPGo: a policy keyed by a template's
// text (as resources/templates/list names it) listed the template to the
// caller but refused every read of a URI it serves as unknown; the read
// is now allowed to the caller with the scopes, and answered as unknown to
// the others, the handler not running for them.
func TestTemplateKeyAuthorizesReadsOnMCPGo(t *testing.T) {
	for _, stateless := range []bool{false, true} {
		t.Run(map[bool]string{false: "stateful", true: "stateless"}[stateless], func(t *testing.T) {
			d := newDBServer(t, adaptercases.CompletionPolicy())
			url := d.serve(t, stateless)
			reader := testserver.ConnectAs(t, url, "reader")
			tl, err := reader.ListResourceTemplates(context.Background(), mcp.ListResourceTemplatesRequest{})
			if err != nil {
				t.Fatal(err)
			}
			admin := testserver.ConnectAs(t, url, "admin")
			adaptercases.CheckTemplateKeyAuthorizesReads(t, adaptercases.TemplateServer{
				Listed: adaptercases.SortedNames(tl.ResourceTemplates, func(x mcp.ResourceTemplate) string { return x.URITemplate.Raw() }),
				Read: func(token, uri string) (int, error) {
					cl := map[string]*client.Client{"reader": reader, "admin": admin}[token]
					res, err := cl.ReadResource(context.Background(), mcp.ReadResourceRequest{Params: mcp.ReadResourceParams{URI: uri}})
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

// TestCompletionInProcessIsTheProcessOwners: over an in-process client
// (as over stdio) the caller is the process owner, granted Policy.Local:
// completion follows that grant.
func TestCompletionInProcessIsTheProcessOwners(t *testing.T) {
	p := adaptercases.CompletionPolicy()
	p.Local = []string{"issues:read"}
	d := newDBServer(t, p)
	cl := testserver.Start(t, transport.NewInProcessTransport(d.s))
	for ref, want := range map[any]string{promptRef("secret_prompt"): `[]`, promptRef("db_query"): `["orders","users"]`,
		templateRef("secret://{key}"): `[]`, templateRef("db://{name}/tables"): `["orders","users"]`} {
		res, err := cl.Complete(context.Background(), mcp.CompleteRequest{Params: mcp.CompleteParams{Ref: ref, Argument: mcp.CompleteArgument{Name: "database"}}})
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := json.Marshal(res.Completion.Values); string(got) != want {
			t.Errorf("completing %v in process: %s, want %s", ref, got, want)
		}
	}
	if n := d.Runs("secret_prompt") + d.Runs("secret://{key}"); n != 0 {
		t.Errorf("the completion code ran %d times for what the process owner may not see", n)
	}
}

// TestSubscribeFollowsThePolicyOnMCPGo: mcp-go acknowledges
// resources/subscribe of any URI and leaves recording it to the server's
// own hooks, which were handed URIs the caller may not read (and so sent
// it their updates). The hooks now get a placeholder for those (legacy
// resources/subscribe, the acknowledgement unchanged, as for an unknown
// URI) and subscriptions/listen (2026-07-28) leaves them out.
func TestSubscribeFollowsThePolicyOnMCPGo(t *testing.T) {
	var mu sync.Mutex
	var subscribed, listened []string
	h := &server.Hooks{}
	h.AddAfterSubscribe(func(_ context.Context, _ any, r *mcp.SubscribeRequest, _ *mcp.EmptyResult) {
		mu.Lock()
		defer mu.Unlock()
		subscribed = append(subscribed, r.Params.URI)
	})
	h.AddBeforeSubscriptionsListen(func(_ context.Context, _ any, r *mcp.SubscriptionsListenRequest) {
		mu.Lock()
		defer mu.Unlock()
		listened = append(listened, r.Params.Notifications.ResourceSubscriptions...)
	})
	d := newDBServer(t, adaptercases.CompletionPolicy(), server.WithHooks(h), server.WithResourceCapabilities(true, true))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	legacy := testserver.ConnectAs(t, d.serve(t, false), "reader", client.WithProtocolVersion("2025-11-25"))
	for _, uri := range []string{"db://orders/tables", "secret://k", "nope://k"} {
		if err := legacy.Subscribe(ctx, mcp.SubscribeRequest{Params: mcp.SubscribeParams{URI: uri}}); err != nil {
			t.Errorf("subscribing to %s: %v", uri, err) // mcp-go acknowledges every URI alike
		}
	}
	modern := testserver.ConnectAs(t, d.serve(t, true), "reader")
	stop, err := modern.ListenAsync(ctx, mcp.SubscriptionFilter{ResourceSubscriptions: []string{"db://orders/tables", "secret://k"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for {
		mu.Lock()
		n := len(listened)
		mu.Unlock()
		if n > 0 || ctx.Err() != nil {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	stop()
	mu.Lock()
	defer mu.Unlock()
	if want := []string{"db://orders/tables", "mcpwrap:hidden", "mcpwrap:hidden"}; !slices.Equal(subscribed, want) {
		t.Errorf("the server's subscribe hook was handed %v, want %v", subscribed, want)
	}
	if want := []string{"db://orders/tables"}; !slices.Equal(listened, want) {
		t.Errorf("the server's listen hook was handed %v, want %v", listened, want)
	}
}

// TestCompletionUnderStepUpGivesNoValues: with StepUp a prompt the caller
// lacks a scope for is listed, but its completion yields no values and
// runs no completion code: the values are what the caller would send, and
// it may not.
func TestCompletionUnderStepUpGivesNoValues(t *testing.T) {
	p := adaptercases.CompletionPolicy()
	p.StepUp = true
	d := newDBServer(t, p)
	cl := testserver.ConnectAs(t, d.serve(t, false), "reader")
	ctx := context.Background()
	prompts, err := cl.ListPrompts(ctx, mcp.ListPromptsRequest{})
	if err != nil || len(prompts.Prompts) != 2 {
		t.Fatalf("under StepUp the reader is listed %v (%v), want both prompts", prompts, err)
	}
	res, err := cl.Complete(ctx, mcp.CompleteRequest{Params: mcp.CompleteParams{Ref: promptRef("secret_prompt"), Argument: mcp.CompleteArgument{Name: "database"}}})
	if err != nil || len(res.Completion.Values) != 0 || d.Runs("secret_prompt") != 0 {
		t.Fatalf("completing a listed prompt the reader may not get: %v %v, the code ran %d times", res, err, d.Runs("secret_prompt"))
	}
}

// TestCompletionProviderSetAfterAttachIsNotToldHiddenNames: a server that
// sets its completion providers after Attach (server.WithPromptCompletionProvider(p)(s))
// replaced the filtered ones: a caller completing a prompt or template it
// may not use got its values (secret names). Now such a provider is asked
// for a name no server has instead, so the caller gets what an unknown
// name gets, the provider never sees the hidden name, and one WARN says
// the provider was set too late.
func TestCompletionProviderSetAfterAttachIsNotToldHiddenNames(t *testing.T) {
	d := newDBServer(t, adaptercases.CompletionPolicy())
	server.WithPromptCompletionProvider(promptCompleter{d})(d.s)
	server.WithResourceCompletionProvider(resourceCompleter{d})(d.s)
	url := d.serve(t, true)
	for _, c := range []struct{ hidden, unknown any }{
		{promptRef("secret_prompt"), promptRef("no_such_prompt")},
		{templateRef("secret://{key}"), templateRef("nope://{x}")},
	} {
		hidden, unknown := rawComplete(t, url, "reader", c.hidden), rawComplete(t, url, "reader", c.unknown)
		if hidden != unknown || strings.Contains(hidden, "prod-db-password") || strings.Contains(hidden, "aws-root-key") {
			t.Errorf("completing hidden %v answered %s, an unknown name %s", c.hidden, hidden, unknown)
		}
	}
	if got := rawComplete(t, url, "admin", promptRef("secret_prompt")); !strings.Contains(got, "prod-db-password") {
		t.Errorf("the admin completing the prompt got %s", got)
	}
	if n, m := d.Runs("secret_prompt"), d.Runs("secret://{key}"); n != 1 || m != 0 {
		t.Errorf("the late provider was asked for the hidden prompt %d times (want the admin's 1) and the hidden template %d times (want 0)", n, m)
	}
	lines, _ := d.logs.Find("level", "WARN")
	var late int
	for _, l := range lines {
		if m, _ := l["msg"].(string); strings.Contains(m, "set after mcpgo.Attach") {
			late++
		}
	}
	if late != 1 {
		t.Errorf("%d warnings of a provider set after Attach, want 1: %s", late, d.logs.String())
	}
}
