// Package mcp is a stub of github.com/mark3labs/mcp-go/mcp v1.2.1: only the
// names the checks look at, with the real signatures.
package mcp

import (
	"context"
	"fmt"
	"net/http"
)

type Meta struct{}

type Request struct{}

type Result struct{}

type CallToolParams struct {
	Name      string `json:"name"`
	Arguments any    `json:"arguments,omitempty"`
}

type CallToolRequest struct {
	Request
	Header http.Header
	Params CallToolParams
}

func (r CallToolRequest) GetString(key string, defaultValue string) string { return defaultValue }

func (r CallToolRequest) RequireString(key string) (string, error) {
	return "", fmt.Errorf("required argument %q not found", key)
}

type Content interface{ isContent() }

type Annotated struct{}

type TextContent struct {
	Annotated
	Meta *Meta
	Type string
	Text string
}

func (TextContent) isContent() {}

type CallToolResult struct {
	Result
	Content           []Content
	StructuredContent any
	IsError           bool
}

type ReadResourceParams struct{ URI string }

type ReadResourceRequest struct {
	Request
	Header http.Header
	Params ReadResourceParams
}

type ResourceContents interface{ isResourceContents() }

type TextResourceContents struct {
	URI  string
	Text string
}

func (TextResourceContents) isResourceContents() {}

type GetPromptParams struct {
	Name      string
	Arguments map[string]string
}

type GetPromptRequest struct {
	Request
	Params GetPromptParams
	Header http.Header
}

type PromptMessage struct{}

type GetPromptResult struct {
	Result
	Description string
	Messages    []PromptMessage
}

type Tool struct{ Name string }

type ToolOption func(*Tool)

func NewTool(name string, opts ...ToolOption) Tool { return Tool{Name: name} }

type Resource struct{ URI, Name string }

type ResourceOption func(*Resource)

func NewResource(uri string, name string, opts ...ResourceOption) Resource {
	return Resource{URI: uri, Name: name}
}

type ResourceTemplate struct{ Name string }

type Prompt struct{ Name string }

type PromptOption func(*Prompt)

func NewPrompt(name string, opts ...PromptOption) Prompt { return Prompt{Name: name} }

func NewTextContent(text string) TextContent { return TextContent{Type: "text", Text: text} }

func NewToolResultText(text string) *CallToolResult {
	return &CallToolResult{Content: []Content{NewTextContent(text)}}
}

func NewToolResultStructured(structured any, fallbackText string) *CallToolResult {
	return &CallToolResult{Content: []Content{NewTextContent(fallbackText)}, StructuredContent: structured}
}

func NewToolResultError(text string) *CallToolResult {
	return &CallToolResult{Content: []Content{NewTextContent(text)}, IsError: true}
}

func NewToolResultErrorFromErr(text string, err error) *CallToolResult {
	return NewToolResultError(text)
}

func NewToolResultErrorf(format string, a ...any) *CallToolResult {
	return NewToolResultError(fmt.Sprintf(format, a...))
}

type TypedToolHandlerFunc[T any] func(ctx context.Context, request CallToolRequest, args T) (*CallToolResult, error)

type StructuredToolHandlerFunc[TArgs any, TResult any] func(ctx context.Context, request CallToolRequest, args TArgs) (TResult, error)

func NewTypedToolHandler[T any](handler TypedToolHandlerFunc[T]) func(ctx context.Context, request CallToolRequest) (*CallToolResult, error) {
	return nil
}

func NewStructuredToolHandler[TArgs any, TResult any](handler StructuredToolHandlerFunc[TArgs, TResult]) func(ctx context.Context, request CallToolRequest) (*CallToolResult, error) {
	return nil
}
