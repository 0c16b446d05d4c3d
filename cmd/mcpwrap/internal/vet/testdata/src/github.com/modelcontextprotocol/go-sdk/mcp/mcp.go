// Package mcp is a stub of github.com/modelcontextprotocol/go-sdk/mcp v1.8.0:
// only the names the checks look at, with the real signatures (the request
// types are aliases of ServerRequest instantiations, as in requests.go).
package mcp

import (
	"context"
	"encoding/json"
)

type Params interface{ isParams() }

type CallToolParamsRaw struct {
	Name      string
	Arguments json.RawMessage
}

func (*CallToolParamsRaw) isParams() {}

type ReadResourceParams struct{ URI string }

func (*ReadResourceParams) isParams() {}

type GetPromptParams struct {
	Name      string
	Arguments map[string]string
}

func (*GetPromptParams) isParams() {}

type ServerSession struct{}

type RequestExtra struct{}

type ServerRequest[P Params] struct {
	Session *ServerSession
	Params  P
	Extra   *RequestExtra
}

type (
	CallToolRequest     = ServerRequest[*CallToolParamsRaw]
	GetPromptRequest    = ServerRequest[*GetPromptParams]
	ReadResourceRequest = ServerRequest[*ReadResourceParams]
)

type Content interface{ isContent() }

type Meta map[string]any

type Annotations struct{}

type TextContent struct {
	Text        string
	Meta        Meta
	Annotations *Annotations
}

func (*TextContent) isContent() {}

type CallToolResult struct {
	Meta              Meta
	Content           []Content
	StructuredContent any
	IsError           bool
}

type ResourceContents struct {
	URI  string
	Text string
}

type ReadResourceResult struct {
	Contents []*ResourceContents
}

type PromptMessage struct{}

type GetPromptResult struct {
	Description string
	Messages    []*PromptMessage
}

type Tool struct {
	Name        string
	Description string
}

type Resource struct {
	Name string
	URI  string
}

type ResourceTemplate struct {
	Name        string
	URITemplate string
}

type Prompt struct{ Name string }

type ToolHandler func(context.Context, *CallToolRequest) (*CallToolResult, error)

type ToolHandlerFor[In, Out any] func(_ context.Context, request *CallToolRequest, input In) (result *CallToolResult, output Out, _ error)

type ResourceHandler func(context.Context, *ReadResourceRequest) (*ReadResourceResult, error)

type PromptHandler func(context.Context, *GetPromptRequest) (*GetPromptResult, error)

type Implementation struct{ Name, Version string }

type ServerOptions struct{}

type Server struct{}

func NewServer(impl *Implementation, options *ServerOptions) *Server { return &Server{} }

func (s *Server) AddTool(t *Tool, h ToolHandler) {}

func AddTool[In, Out any](s *Server, t *Tool, h ToolHandlerFor[In, Out]) {}

func (s *Server) AddResource(r *Resource, h ResourceHandler) {}

func (s *Server) AddResourceTemplate(t *ResourceTemplate, h ResourceHandler) {}

func (s *Server) AddPrompt(p *Prompt, h PromptHandler) {}

type Transport interface{ isTransport() }

type StdioTransport struct{ MaxLineLength int }

func (*StdioTransport) isTransport() {}

type StreamableHTTPOptions struct{}

func (s *Server) Run(ctx context.Context, t Transport) error { return nil }
