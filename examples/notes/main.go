// Command notes shows, with real servers and a real client, what a client
// receives when a resource or prompt handler fails, with and without
// mcpwrap.
//
//	go run ./examples/notes
//
// It serves the same resources, resource template and prompts over
// streamable HTTP on 127.0.0.1 twice, bare and with mcpgo.Attach, reads
// and gets each on both, and prints the answer and,
// for the wrapped server, the operator's log line. It exits 1 if the
// wrapped server leaks the database password, drops the connection, or
// answers a step with another JSON-RPC code than docs/retrofit.md gives
// for its failure (-32002, -32602 or -32603).
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/mcpgo"
)

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "notes:", err)
		os.Exit(1)
	}
}

// dsn is what a careless handler puts in its errors.
const dsn = "postgres://notes:s3cret@10.0.3.7/notes"

type summaryArgs struct {
	Topic string `json:"topic" validate:"required" description:"What to summarise"`
	Style string `json:"style" validate:"omitempty,oneof=short long" description:"short or long"`
}

// step is one request of the comparison and the JSON-RPC code the wrapped
// server must answer with (0: success).
type step struct {
	what   string
	uri    string // a resources/read, or
	prompt string // a prompts/get
	args   map[string]string
	want   int
}

var steps = []step{
	{what: "resource found", uri: "note://today"},
	{what: "template, no such note", uri: "note://archive/1999-01-01", want: mcp.RESOURCE_NOT_FOUND},
	{what: "database error carrying a DSN", uri: "note://shared", want: mcp.INTERNAL_ERROR},
	{what: "handler panics", uri: "note://drafts", want: mcp.INTERNAL_ERROR},
	{what: "handler hangs (timeout 500ms)", uri: "note://search", want: mcp.INTERNAL_ERROR},
	{what: "typed prompt", prompt: "summary", args: map[string]string{"topic": "tides"}},
	{what: "typed prompt, bad arguments", prompt: "summary", args: map[string]string{"style": "epic"}, want: mcp.INVALID_PARAMS},
	{what: "prompt returns nil, nil", prompt: "digest", want: mcp.INTERNAL_ERROR},
}

// register adds the same handlers to s.
func register(s *server.MCPServer, release <-chan struct{}) {
	text := func(uri, t string) []mcp.ResourceContents {
		return []mcp.ResourceContents{mcp.TextResourceContents{URI: uri, MIMEType: "text/plain", Text: t}}
	}
	s.AddResource(mcp.NewResource("note://today", "today"), func(_ context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
		return text(req.Params.URI, "high tide at 06:12"), nil
	})
	s.AddResourceTemplate(mcp.NewResourceTemplate("note://archive/{day}", "archive"),
		func(_ context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			day, _ := req.Params.Arguments["day"].([]string) // template variables arrive as lists
			return nil, errs.Newf(errs.NotFound, "no note for %s", strings.Join(day, ","))
		})
	s.AddResource(mcp.NewResource("note://shared", "shared"), func(context.Context, mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
		return nil, errors.New(`pq: password authentication failed (` + dsn + `)`)
	})
	s.AddResource(mcp.NewResource("note://drafts", "drafts"), func(context.Context, mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
		var drafts map[string]int
		//lint:ignore SA5000 the panic is the point
		drafts["today"]++ // assignment to entry in nil map
		return nil, nil
	})
	s.AddResource(mcp.NewResource("note://search", "search"), func(context.Context, mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
		<-release // an index that ignores cancellation
		return nil, nil
	})
	s.AddPrompts(mcpgo.TypedPrompt(mcp.NewPrompt("summary"),
		func(_ context.Context, _ mcp.GetPromptRequest, a summaryArgs) (*mcp.GetPromptResult, error) {
			return mcp.NewGetPromptResult("summary", []mcp.PromptMessage{
				mcp.NewPromptMessage(mcp.RoleUser, mcp.NewTextContent("Summarise "+a.Topic))}), nil
		}))
	s.AddPrompt(mcp.NewPrompt("digest"), func(context.Context, mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return nil, nil //mcpwrap:ignore nilresult the notes example shows what mcpwrap makes of nil, nil
	})
}

func run(ctx context.Context, out io.Writer) error {
	release := make(chan struct{})
	defer close(release)
	opts := []server.ServerOption{server.WithResourceCapabilities(false, false), server.WithPromptCapabilities(false)}

	bareSrv := server.NewMCPServer("notes", "1.0.0", opts...)
	register(bareSrv, release)
	bare, err := serve(bareSrv, client.WithProtocolVersion("2025-11-25"))
	if err != nil {
		return err
	}
	defer bare.Close()

	var logs strings.Builder
	w := wrap.New(wrap.WithLogger(slog.New(slog.NewJSONHandler(&logs, nil))), wrap.WithTimeout(500*time.Millisecond))
	wrappedSrv := server.NewMCPServer("notes", "1.0.0", opts...)
	mcpgo.Attach(wrappedSrv, w)
	register(wrappedSrv, release)
	wrapped, err := serve(wrappedSrv, client.WithProtocolVersion("2025-11-25"))
	if err != nil {
		return err
	}
	defer wrapped.Close()

	var problems []string
	for _, st := range steps {
		fmt.Fprintf(out, "\n%s %s — %s\n", method(st), target(st), st.what)
		fmt.Fprintf(out, "  without mcpwrap: %s\n", ask(ctx, bare, st))
		logs.Reset()
		got := ask(ctx, wrapped, st)
		fmt.Fprintf(out, "  with mcpwrap:    %s\n", got)
		if line := strings.TrimSpace(logs.String()); line != "" {
			fmt.Fprintf(out, "  operator's log:  %s\n", line)
		}
		switch {
		case strings.Contains(got, "s3cret"):
			problems = append(problems, st.what+": the password reached the client")
		case st.want == 0 && !strings.HasPrefix(got, "ok"), st.want != 0 && !strings.HasPrefix(got, fmt.Sprintf("JSON-RPC error %d", st.want)):
			problems = append(problems, fmt.Sprintf("%s: want code %d, got %s", st.what, st.want, got))
		}
	}
	if len(problems) > 0 {
		return errors.New(strings.Join(problems, "; "))
	}
	return nil
}

func method(st step) string {
	if st.uri != "" {
		return "resources/read"
	}
	return "prompts/get"
}

func target(st step) string {
	if st.uri != "" {
		return st.uri
	}
	return st.prompt
}

// ask sends the step's request and describes the answer as the client saw
// it on the wire.
func ask(ctx context.Context, c *conn, st step) string {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	c.wire.reset()
	var err error
	if st.uri != "" {
		_, err = c.client.ReadResource(ctx, mcp.ReadResourceRequest{Params: mcp.ReadResourceParams{URI: st.uri}})
	} else {
		_, err = c.client.GetPrompt(ctx, mcp.GetPromptRequest{Params: mcp.GetPromptParams{Name: st.prompt, Arguments: st.args}})
	}
	if err == nil {
		return "ok"
	}
	if wire := c.wire.errors(); len(wire) > 0 {
		var e struct {
			Code    int             `json:"code"`
			Message string          `json:"message"`
			Data    json.RawMessage `json:"data"`
		}
		_ = json.Unmarshal(wire[len(wire)-1], &e)
		s := fmt.Sprintf("JSON-RPC error %d: %s", e.Code, e.Message)
		if len(e.Data) > 0 {
			s += " data=" + string(e.Data)
		}
		return s
	}
	if ctx.Err() != nil {
		return "no answer after 2s"
	}
	return "connection dropped: " + err.Error()
}
