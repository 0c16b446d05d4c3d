// Package server is a stub of github.com/mark3labs/mcp-go/server v1.2.1.
package server

import (
	"context"
	"net/http"

	"github.com/mark3labs/mcp-go/mcp"
)

type ResourceHandlerFunc func(ctx context.Context, request mcp.ReadResourceRequest) ([]mcp.ResourceContents, error)

type ResourceTemplateHandlerFunc func(ctx context.Context, request mcp.ReadResourceRequest) ([]mcp.ResourceContents, error)

type PromptHandlerFunc func(ctx context.Context, request mcp.GetPromptRequest) (*mcp.GetPromptResult, error)

type ToolHandlerFunc func(ctx context.Context, request mcp.CallToolRequest) (*mcp.CallToolResult, error)

type ServerTool struct {
	Tool    mcp.Tool
	Handler ToolHandlerFunc
}

type ServerPrompt struct {
	Prompt  mcp.Prompt
	Handler PromptHandlerFunc
}

type ServerResource struct {
	Resource mcp.Resource
	Handler  ResourceHandlerFunc
}

type ServerOption func(*MCPServer)

type MCPServer struct{}

func NewMCPServer(name, version string, opts ...ServerOption) *MCPServer { return &MCPServer{} }

func (s *MCPServer) AddTool(tool mcp.Tool, handler ToolHandlerFunc) {}

func (s *MCPServer) AddTools(tools ...ServerTool) {}

func (s *MCPServer) AddSessionTool(sessionID string, tool mcp.Tool, handler ToolHandlerFunc) error {
	return nil
}

func (s *MCPServer) AddResource(resource mcp.Resource, handler ResourceHandlerFunc) {}

func (s *MCPServer) AddResourceTemplate(template mcp.ResourceTemplate, handler ResourceTemplateHandlerFunc) {
}

func (s *MCPServer) AddPrompt(prompt mcp.Prompt, handler PromptHandlerFunc) {}

type StdioOption func(*StdioServer)

type StdioServer struct{}

func NewStdioServer(server *MCPServer) *StdioServer { return &StdioServer{} }

func ServeStdio(server *MCPServer, opts ...StdioOption) error { return nil }

type StreamableHTTPOption func(*StreamableHTTPServer)

type StreamableHTTPServer struct{ http.Handler }

func NewStreamableHTTPServer(server *MCPServer, opts ...StreamableHTTPOption) *StreamableHTTPServer {
	return &StreamableHTTPServer{}
}

func (s *StreamableHTTPServer) Start(addr string) error { return nil }
