package mcpgo_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpwrap/mcpwrap/internal/errcases"
	"github.com/mcpwrap/mcpwrap/internal/logbuf"
	"github.com/mcpwrap/mcpwrap/internal/testserver"
	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/mcpgo"
)

// probes collects what errcases.Probe found wrong in the errors mcp-go's
// error hook was given: the values the handlers (through mcpwrap or bare)
// handed mcp-go.
type probes struct {
	mu  sync.Mutex
	bad []string
}

func (p *probes) hook(_ context.Context, _ any, m mcp.MCPMethod, _ any, err error) {
	found := errcases.Probe(err, new(mcp.URLElicitationRequiredError), new(*mcp.URLElicitationRequiredError))
	if len(found) == 0 {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.bad = append(p.bad, string(m)+": "+strings.Join(found, "; "))
}

// caseServer serves every case as the tool "t<i>", the resource
// "case://<i>" and the prompt "p<i>", each returning the case's error, and
// the tool "ok"; wrapped or bare.
func caseServer(cases []errcases.Case, w *wrap.Wrapper, p *probes) *server.MCPServer {
	h := &server.Hooks{}
	h.AddOnError(p.hook)
	s := server.NewMCPServer("cases", "1.0.0", server.WithHooks(h), server.WithRecovery())
	s.AddTool(mcp.NewTool("ok"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("ok"), nil
	})
	for i, c := range cases {
		n := strconv.Itoa(i)
		s.AddTool(mcp.NewTool("t"+n), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return nil, c.Err()
		})
		s.AddResource(mcp.NewResource("case://"+n, c.Name), func(context.Context, mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			return nil, c.Err()
		})
		s.AddPrompt(mcp.NewPrompt("p"+n), func(context.Context, mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return nil, c.Err()
		})
	}
	if w != nil {
		mcpgo.Attach(s, w)
	}
	return s
}

// answer says how the client was answered: "" for a well-formed answer (a
// result, or a JSON-RPC error with a message and no panic in it), else
// what went wrong.
func answer(err error) string {
	var te *transport.Error
	switch {
	case err == nil:
		return ""
	case errors.As(err, &te):
		return "no answer: " + err.Error()
	case strings.Contains(err.Error(), "panic"):
		return "a panic answered: " + err.Error()
	case err.Error() == "":
		return "an empty error message"
	}
	return ""
}

// callEvery calls each case's tool, resource and prompt and returns how
// each was answered, keyed by kind and case name ("" when well-formed).
func callEvery(t *testing.T, cl *client.Client, cases []errcases.Case) map[string]string {
	t.Helper()
	out := map[string]string{}
	for i, c := range cases {
		n := strconv.Itoa(i)
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		var req mcp.CallToolRequest
		req.Params.Name = "t" + n
		res, err := cl.CallTool(ctx, req)
		if err == nil && res == nil {
			out["tool "+c.Name] = "a nil result"
		} else {
			out["tool "+c.Name] = answer(err)
		}
		_, err = cl.ReadResource(ctx, mcp.ReadResourceRequest{Params: mcp.ReadResourceParams{URI: "case://" + n}})
		out["resource "+c.Name] = answer(err)
		_, err = cl.GetPrompt(ctx, mcp.GetPromptRequest{Params: mcp.GetPromptParams{Name: "p" + n}})
		out["prompt "+c.Name] = answer(err)
		cancel()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var req mcp.CallToolRequest
	req.Params.Name = "ok"
	if res, err := cl.CallTool(ctx, req); err != nil || res.IsError {
		out["alive"] = "the server did not answer the next call: " + answer(err)
	}
	return out
}

// TestErrorsHandedToMCPGoAreSafe: no error a handler returns can break
// mcp-go or its answer. Whatever a tool, resource or prompt handler
// returns (plain, wrapped, joined, typed nils, panicking methods, errs codes, protocol
// errors and seeded random mixes of them), the error mcpwrap hands mcp-go
// survives errors.As / errors.Is / Unwrap for every target type, the client
// gets a well-formed answer over stdio and streamable HTTP, and the server
// answers the next call. Bare mcp-go's answers are the baseline: every case
// bare answered well, wrapped does too (here: every case).
func TestErrorsHandedToMCPGoAreSafe(t *testing.T) {
	cases := errcases.Cases(30, 40)
	for _, tr := range []string{"stdio", "http"} {
		t.Run(tr, func(t *testing.T) {
			run := func(w *wrap.Wrapper) (map[string]string, *probes) {
				p := &probes{}
				s := caseServer(cases, w, p)
				cl := testserver.StartOver(t, tr, s)
				return callEvery(t, cl, cases), p
			}
			bare, _ := run(nil)
			var logs logbuf.Buffer
			got, p := run(wrap.New(wrap.WithLogger(logs.Logger())))
			worse, bareBad := 0, 0
			for k, v := range got {
				if bare[k] != "" {
					bareBad++
				}
				if v != "" {
					worse++
					t.Errorf("%s: %s (bare: %q)", k, v, bare[k])
				}
			}
			for _, b := range p.bad {
				t.Errorf("the error handed to mcp-go is unsafe: %s", b)
			}
			t.Logf("%d answers: bare %d not well-formed, wrapped %d; %d probe failures", len(got), bareBad, worse, len(p.bad))
		})
	}
}

// TestPlainResourceErrorDoesNotCrashMCPGo: on a three-line server whose
// resource and prompt return a plain error whose text may be shown, the
// client reads a JSON-RPC error with that text, over stdio and over HTTP.
// mcp-go had dereferenced a typed nil there (-32603 "internal panic" over
// stdio, a dropped connection over HTTP).
func TestPlainResourceErrorDoesNotCrashMCPGo(t *testing.T) {
	for _, tr := range []string{"stdio", "http"} {
		t.Run(tr, func(t *testing.T) {
			s := server.NewMCPServer("three-lines", "1.0.0")
			s.AddResource(mcp.NewResource("reg://x", "x"), func(context.Context, mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
				return nil, errors.New(errcases.Plain)
			})
			s.AddPrompt(mcp.NewPrompt("x"), func(context.Context, mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
				return nil, errors.New(errcases.Plain)
			})
			mcpgo.Attach(s, wrap.New())
			cl := testserver.StartOver(t, tr, s)
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			_, rerr := cl.ReadResource(ctx, mcp.ReadResourceRequest{Params: mcp.ReadResourceParams{URI: "reg://x"}})
			_, perr := cl.GetPrompt(ctx, mcp.GetPromptRequest{Params: mcp.GetPromptParams{Name: "x"}})
			for what, err := range map[string]error{"resource": rerr, "prompt": perr} {
				if err == nil || answer(err) != "" || !strings.Contains(err.Error(), errcases.Plain) {
					t.Errorf("%s: got %v, want a JSON-RPC error with the text %q", what, err, errcases.Plain)
				}
			}
		})
	}
}

// TestNilTextContentDoesNotBreakTheChain: an isError result holding a nil
// *mcp.TextContent among its contents reaches the client as the masked
// internal error with a call id: a nil content cannot be sent (mcp-go
// writes null, which no client reads), so it is a result the server could
// not send. The chain's reading of its text for the log line, one code for
// both adapters (internal/result), had dereferenced the nil and the client
// got EOF.
func TestNilTextContentDoesNotBreakTheChain(t *testing.T) {
	var logs logbuf.Buffer
	s := server.NewMCPServer("nil", "1.0.0")
	mcpgo.Attach(s, wrap.New(wrap.WithLogger(logs.Logger())))
	s.AddTool(mcp.NewTool("nil_text"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{
			mcp.NewTextContent("upstream said no"), (*mcp.TextContent)(nil)}}, nil
	})
	res := testserver.StartHTTP(t, s).CallRaw(t, "nil_text", "")
	info, ok := mcpgo.InfoOf(res)
	if !ok || info.Code != "internal" || info.CallID == "" {
		t.Fatalf("want an internal error with a call id, got %+v (%+v)", res, info)
	}
}
