// Package retrofit holds a tool server written the way mcp-go servers are
// commonly written — the request's Require*/Get* helpers, BindArguments,
// plain fmt.Errorf, a panic in a helper — and nothing of mcpwrap. Its test
// serves it bare and with the README's retrofit side by side, so an answer
// that gets worse for the model fails a test.
package retrofit

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// AddTools registers the fixture's tools on s; files live under root.
func AddTools(s *server.MCPServer, root string) {
	fs := &fileServer{root: root}
	s.AddTool(mcp.NewTool("read_file", mcp.WithString("path", mcp.Required()),
		mcp.WithReadOnlyHintAnnotation(true)), fs.readFile)
	s.AddTool(mcp.NewTool("write_file", mcp.WithString("path", mcp.Required()), mcp.WithString("content", mcp.Required())),
		fs.writeFile)
	s.AddTool(mcp.NewTool("read_many", mcp.WithArray("paths", mcp.Required())), fs.readMany)
	s.AddTool(mcp.NewTool("head", mcp.WithString("path", mcp.Required()), mcp.WithNumber("lines")), fs.head)
	s.AddTool(mcp.NewTool("set_readonly", mcp.WithString("path"), mcp.WithBoolean("on", mcp.Required())), fs.setReadonly)
	s.AddTool(mcp.NewTool("scale", mcp.WithNumber("factor", mcp.Required())), scale)
	s.AddTool(mcp.NewTool("create_user", mcp.WithString("name"), mcp.WithNumber("age")), createUser)
	s.AddTool(mcp.NewTool("typed_user", mcp.WithString("name"), mcp.WithNumber("age")),
		mcp.NewTypedToolHandler(typedUser))
	s.AddTool(mcp.NewTool("query_db", mcp.WithString("sql")), queryDB)
	s.AddTool(mcp.NewTool("summarize", mcp.WithString("path")), fs.summarize)
	s.AddTool(mcp.NewTool("list_dir"), fs.listDir)
}

type fileServer struct{ root string }

// resolve keeps paths under root, the usual guard.
func (f *fileServer) resolve(p string) (string, error) {
	full := filepath.Join(f.root, filepath.Clean("/"+p))
	if !strings.HasPrefix(full, f.root) {
		return "", fmt.Errorf("access denied: %s is outside the allowed directory", p) //mcpwrap:ignore masked the fixture is written like a third-party server
	}
	return full, nil
}

func (f *fileServer) readFile(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	path, err := req.RequireString("path")
	if err != nil {
		return nil, err
	}
	full, err := f.resolve(path)
	if err != nil {
		return nil, err
	}
	b, err := os.ReadFile(full)
	if err != nil {
		return nil, fmt.Errorf("failed to read file: %w", err)
	}
	return mcp.NewToolResultText(string(b)), nil
}

func (f *fileServer) writeFile(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	path, err := req.RequireString("path")
	if err != nil {
		return nil, err
	}
	content, err := req.RequireString("content")
	if err != nil {
		return nil, err
	}
	full, err := f.resolve(path)
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(full, []byte(content), 0o600); err != nil {
		return nil, fmt.Errorf("failed to write file: %w", err)
	}
	return mcp.NewToolResultText(fmt.Sprintf("wrote %d bytes to %s", len(content), path)), nil
}

func (f *fileServer) readMany(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	paths, err := req.RequireStringSlice("paths")
	if err != nil {
		return nil, err
	}
	var out []string
	for _, p := range paths {
		r := req
		r.Params.Arguments = map[string]any{"path": p}
		res, err := f.readFile(ctx, r)
		if err != nil {
			return nil, err
		}
		out = append(out, res.Content[0].(mcp.TextContent).Text)
	}
	return mcp.NewToolResultText(strings.Join(out, "\n---\n")), nil
}

func (f *fileServer) head(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	n := req.GetInt("lines", 3)
	res, err := f.readFile(ctx, req)
	if err != nil {
		return nil, err
	}
	lines := strings.Split(res.Content[0].(mcp.TextContent).Text, "\n")
	return mcp.NewToolResultText(strings.Join(lines[:n], "\n")), nil // panics when n is too large
}

func (f *fileServer) setReadonly(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	on, err := req.RequireBool("on")
	if err != nil {
		return nil, err
	}
	return mcp.NewToolResultText(fmt.Sprintf("%s read-only: %v", req.GetString("path", "."), on)), nil
}

func scale(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	factor, err := req.RequireFloat("factor")
	if err != nil {
		return nil, err
	}
	return mcp.NewToolResultText(fmt.Sprintf("scaled by %g", factor)), nil
}

type user struct {
	Name string `json:"name"`
	Age  int    `json:"age"`
}

func createUser(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var u user
	if err := req.BindArguments(&u); err != nil {
		return nil, err
	}
	if u.Name == "" {
		return nil, errors.New("name is required") //mcpwrap:ignore masked the fixture is written like a third-party server
	}
	return mcp.NewToolResultText(fmt.Sprintf("created %s (%d)", u.Name, u.Age)), nil
}

func typedUser(_ context.Context, _ mcp.CallToolRequest, u user) (*mcp.CallToolResult, error) {
	return mcp.NewToolResultText(fmt.Sprintf("created %s (%d)", u.Name, u.Age)), nil
}

func queryDB(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	return nil, fmt.Errorf("query %q: pq: password authentication failed for user \"app\" (postgres://app:hunter2@10.0.0.5/app)", //mcpwrap:ignore masked the fixture leaks a DSN on purpose
		req.GetString("sql", ""))
}

func (f *fileServer) summarize(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	res, err := f.readFile(ctx, req)
	if err != nil {
		return nil, err
	}
	var stats map[string]int
	stats["chars"] = len(res.Content[0].(mcp.TextContent).Text) // a helper bug: nil map
	return mcp.NewToolResultText("summary"), nil
}

func (f *fileServer) listDir(_ context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	entries, err := os.ReadDir(f.root)
	if err != nil {
		return mcp.NewToolResultError(fmt.Sprintf("cannot list: %v", err)), nil
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return mcp.NewToolResultText(strings.Join(names, "\n")), nil
}
