package validate_test

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mcpwrap/mcpwrap/internal/benchmix"
	"github.com/mcpwrap/mcpwrap/internal/errmap"
	"github.com/mcpwrap/mcpwrap/internal/testserver"
	"github.com/mcpwrap/mcpwrap/validate"
	"github.com/mcpwrap/mcpwrap/wrap/mcpgo"
)

var benchSink benchmix.Args

// wireRequest is a call of tool with args as mcp-go builds it from the wire.
func wireRequest(b *testing.B, tool, args string) mcp.CallToolRequest {
	var req mcp.CallToolRequest
	if err := json.Unmarshal([]byte(`{"name":"`+tool+`","arguments":`+args+`}`), &req.Params); err != nil {
		b.Fatal(err)
	}
	return req
}

// benchRefused binds req with bd once per iteration, failing if it binds,
// and builds the result the model reads of its refusal.
func benchRefused[T any](b *testing.B, bd *validate.Binder[T], req mcp.CallToolRequest) {
	b.ReportAllocs()
	for b.Loop() {
		_, err := bindReq(bd, req)
		if err == nil {
			b.Fatal("bound")
		}
		_ = errmap.ToResult(err, errmap.Call{Tool: req.Params.Name})
	}
}

// BenchmarkBind compares, in one run, binding + validation of the same
// arguments by a Binder and by what mcp-go does with
// WithInputSchemaValidation: re-encode the arguments, validate them
// against the compiled schema (the same schema, derived from benchmix.Args),
// then BindArguments.
func BenchmarkBind(b *testing.B) {
	req := wireRequest(b, "forecast", benchmix.ArgsJSON)
	bd := validate.MustNew[benchmix.Args]()
	b.Run("mcpwrap", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			v, err := bindReq(bd, req)
			if err != nil {
				b.Fatal(err)
			}
			benchSink = v
		}
	})
	b.Run("mcpgo_schema_validation", func(b *testing.B) {
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(bd.Schema()))
		if err != nil {
			b.Fatal(err)
		}
		c := jsonschema.NewCompiler()
		if err := c.AddResource("mem:///s.json", doc); err != nil {
			b.Fatal(err)
		}
		sch, err := c.Compile("mem:///s.json")
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			raw, err := json.Marshal(req.Params.Arguments)
			if err != nil {
				b.Fatal(err)
			}
			v, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
			if err != nil {
				b.Fatal(err)
			}
			if err := sch.Validate(v); err != nil {
				b.Fatal(err)
			}
			var a benchmix.Args
			if err := req.BindArguments(&a); err != nil {
				b.Fatal(err)
			}
			benchSink = a
		}
	})
}

// BenchmarkDispatchTyped measures a whole tools/call through mcp-go's
// HandleMessage, in one run: no validation at all (BindArguments only),
// mcp-go's WithInputSchemaValidation + BindArguments, and mcpgo.Typed (the
// wrap chain, binding and validation).
func BenchmarkDispatchTyped(b *testing.B) {
	msg := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"forecast","arguments":` + benchmix.ArgsJSON + `}}`)
	bd := validate.MustNew[benchmix.Args]()
	plain := func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var a benchmix.Args
		if err := req.BindArguments(&a); err != nil {
			return nil, err
		}
		benchSink = a
		return benchResult, nil
	}
	unchecked := server.NewMCPServer("b", "1")
	unchecked.AddTool(mcp.NewToolWithRawSchema("forecast", "", bd.Schema()), plain)
	checked := server.NewMCPServer("b", "1", server.WithInputSchemaValidation())
	checked.AddTool(mcp.NewToolWithRawSchema("forecast", "", bd.Schema()), plain)
	ours := server.NewMCPServer("b", "1")
	ours.AddTools(mcpgo.Typed(nil, mcp.NewTool("forecast"), func(_ context.Context, _ mcp.CallToolRequest, a benchmix.Args) (*mcp.CallToolResult, error) {
		benchSink = a
		return benchResult, nil
	}))
	for _, sv := range []struct {
		name string
		s    *server.MCPServer
	}{{"bind_only_unchecked", unchecked}, {"mcpgo_schema_validation", checked}, {"mcpwrap_typed", ours}} {
		b.Run(sv.name, func(b *testing.B) { testserver.BenchCall(b, sv.s, msg) })
	}
}

var benchResult = mcp.NewToolResultText("ok")
