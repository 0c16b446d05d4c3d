package wrap_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/internal/logbuf"
	"github.com/mcpwrap/mcpwrap/internal/obstest"
	"github.com/mcpwrap/mcpwrap/internal/testserver"
	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/mcpgo"
)

// readFile is written the way mcp-go servers commonly are: mcp-go's own
// argument helpers and BindArguments, plain fmt.Errorf.
func readFile(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	path, err := req.RequireString("path")
	if err != nil {
		return nil, err
	}
	if _, err := req.RequireStringSlice("tags"); err != nil && !strings.HasPrefix(err.Error(), "required") {
		return nil, fmt.Errorf("read_file: %w", err)
	}
	var opts struct {
		Limit int `json:"limit"`
	}
	if err := req.BindArguments(&opts); err != nil {
		return nil, err
	}
	return mcp.NewToolResultText("contents of " + path), nil
}

// fetchConfig decodes an upstream's answer, which is not the request's
// fault: its JSON error must stay masked.
func fetchConfig(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var conf struct {
		Limit int `json:"limit"`
	}
	if err := json.Unmarshal([]byte(`{"version":2,"limit":"lots"}`), &conf); err != nil {
		return nil, fmt.Errorf("decode upstream config: %w", err)
	}
	return mcp.NewToolResultText("ok"), nil
}

// TestMCPGoArgumentErrorsReachTheModel: the helpers' errors used to be
// masked as internal errors; the model now reads which argument was wrong.
func TestMCPGoArgumentErrorsReachTheModel(t *testing.T) {
	var logs logbuf.Buffer
	s := server.NewMCPServer("files", "1.0.0", attached(wrap.New(wrap.WithLogger(logs.Logger()))))
	s.AddTool(mcp.NewTool("read_file"), readFile)
	s.AddTool(mcp.NewTool("fetch_config"), fetchConfig)
	s.AddTool(mcp.NewTool("forecast"), mcp.NewTypedToolHandler(func(_ context.Context, _ mcp.CallToolRequest, a struct {
		City string `json:"city"`
		Days int    `json:"days"`
	}) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText(fmt.Sprintf("%d days in %s", a.Days, a.City)), nil
	}))
	conn := testserver.StartHTTP(t, s)
	cases := []struct {
		args, text, param string
	}{
		{`{}`, `required argument "path" not found`, "path"},
		{`{"path":7}`, `argument "path" is not a string`, "path"},
		{`{"path":"a","tags":"x"}`, `argument "tags" is not a string slice`, "tags"},
		{`{"path":"a","tags":["x",1]}`, `item 1 in argument "tags" is not a string`, "tags[1]"},
		{`{"path":"a","limit":"ten"}`, `parameter "limit" must be an integer, got string`, "limit"},
	}
	for _, c := range cases {
		t.Run(c.args, func(t *testing.T) {
			res := conn.CallRaw(t, "read_file", c.args)
			want := `invalid arguments for tool "read_file": ` + c.text
			if !res.IsError || firstText(res) != want {
				t.Fatalf("model reads %q, want %q", firstText(res), want)
			}
			info, _ := mcpgo.InfoOf(res)
			if info.Code != "invalid_argument" || len(info.Violations) != 1 || info.Violations[0].Parameter != c.param {
				t.Fatalf("info %+v, want one violation of %q", info, c.param)
			}
		})
	}
	res := conn.CallRaw(t, "forecast", `{"city":"Paris","days":"three"}`)
	if want := `invalid arguments for tool "forecast": parameter "days" must be an integer, got string`; firstText(res) != want {
		t.Fatalf("mcp-go's typed handler: model reads %q, want %q", firstText(res), want)
	}
	if res := conn.CallRaw(t, "forecast", `{"city":"Paris","days":3}`); res.IsError {
		t.Fatalf("valid typed call failed: %q", firstText(res))
	}
	// The upstream's JSON error is not the caller's fault: never an
	// invalid-argument answer. Its text holds nothing private, and bare
	// mcp-go sends it, so the model reads it as the server wrote it.
	res = conn.CallRaw(t, "fetch_config", `{"limit":"ten"}`)
	if info, _ := mcpgo.InfoOf(res); !res.IsError || info.Code == "invalid_argument" ||
		!strings.HasPrefix(firstText(res), "decode upstream config: json: cannot unmarshal") {
		t.Fatalf("the upstream's JSON error: %q %+v", firstText(res), info)
	}
	lines, _ := callLines(&logs, "fetch_config")
	if len(lines) != 1 || lines[0]["masked"] != nil || lines[0]["outcome"] != "tool_error" || lines[0]["cause"] == nil {
		t.Fatalf("the shown error's log line: %v", lines)
	}
	lines, _ = callLines(&logs, "read_file")
	for _, l := range lines {
		if l["outcome"] != "invalid_argument" || l["masked"] != nil {
			t.Fatalf("log line %v, want outcome invalid_argument, not masked", l)
		}
	}
}

// userError is a server's own convention for errors written for the user.
type userError struct{ msg string }

func (e *userError) Error() string { return e.msg }

func TestPublicErrorsAreShownAndMaskedOnesSaySo(t *testing.T) {
	var logs logbuf.Buffer
	public := func(err error) bool {
		var u *userError
		return errors.As(err, &u)
	}
	s := server.NewMCPServer("notes", "1.0.0", attached(wrap.New(wrap.WithLogger(logs.Logger()), wrap.WithPublicErrors(public))))
	s.AddTool(mcp.NewTool("quota"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, fmt.Errorf("save: %w", &userError{"you have used all 20 notes of your plan; delete one first"})
	})
	s.AddTool(mcp.NewTool("leaky"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, errors.New("pq: relation \"notes\" does not exist")
	})
	s.AddTool(mcp.NewTool("classified"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, &userError{"user wording"}
	})
	conn := testserver.StartHTTP(t, s)

	res := conn.CallRaw(t, "quota", "")
	lines, _ := callLines(&logs, "quota")
	if len(lines) != 1 || lines[0]["outcome"] != "tool_error" || lines[0]["masked"] != nil {
		t.Fatalf("public error log line: %v", lines)
	}
	id, _ := lines[0]["call_id"].(string)
	if want := "save: you have used all 20 notes of your plan; delete one first (call id " + id + ")"; !res.IsError || firstText(res) != want {
		t.Fatalf("public error: model reads %q, want %q", firstText(res), want)
	}
	if info, ok := mcpgo.InfoOf(res); !ok || info.CallID != id || info.Code != "internal" {
		t.Fatalf("public error: structuredContent.error %+v, want code internal and call id %q", info, id)
	}

	res = conn.CallRaw(t, "leaky", "")
	if strings.Contains(firstText(res), "pq:") {
		t.Fatalf("an error the predicate rejects reached the model: %q", firstText(res))
	}
	lines, _ = callLines(&logs, "leaky")
	if len(lines) != 1 || lines[0]["masked"] != true || lines[0]["outcome"] != "internal" {
		t.Fatalf("masked error log line: %v", lines)
	}
}

// TestBothFormsShareOneConfiguration: with wrap.Middleware on the server,
// tools registered with wrap.Tool or mcpgo.Typed — with no options, with
// nil, or built by another Wrapper — used to get no log line, no span and no
// timeout, because the middleware stepped aside for them.
func TestBothFormsShareOneConfiguration(t *testing.T) {
	tel := obstest.Record(t)
	spans, logs := tel.Spans, tel.Logs
	w := wrap.New(tel.Option(), wrap.WithTimeout(100*time.Millisecond))
	release := make(chan struct{})
	defer close(release)
	hang := func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		<-release // ignores its context
		return mcp.NewToolResultText("late"), nil
	}
	type noArgs struct{}
	hangTyped := func(ctx context.Context, req mcp.CallToolRequest, _ noArgs) (*mcp.CallToolResult, error) {
		return hang(ctx, req)
	}
	var other logbuf.Buffer
	s := server.NewMCPServer("mixed", "1.0.0", attached(w))
	s.AddTools(
		mcpgo.Tool(w, mcp.NewTool("same_wrapper"), hang),
		mcpgo.Tool(wrap.New(), mcp.NewTool("no_options"), hang),
		mcpgo.Typed(nil, mcp.NewTool("typed_nil"), hangTyped),
		mcpgo.Typed(w, mcp.NewTool("typed_w"), hangTyped),
		// Built with another Wrapper: the attached Wrapper's middleware serves
		// it (its timeout, log line and span); that Wrapper's own chain runs
		// inside it (see mcpgo.Tool), and logs to its own logger only when
		// the abandoned handler returns.
		mcpgo.Tool(wrap.New(wrap.WithLogger(other.Logger())), mcp.NewTool("other_wrapper"), hang),
	)
	conn := testserver.StartHTTP(t, s)
	for _, name := range []string{"same_wrapper", "no_options", "typed_nil", "typed_w", "other_wrapper"} {
		t.Run(name, func(t *testing.T) {
			start := time.Now()
			res, err := conn.Call(t.Context(), name, nil)
			if err != nil {
				t.Fatal(err)
			}
			if info, _ := mcpgo.InfoOf(res); info.Code != "timeout" || time.Since(start) > 5*time.Second {
				t.Fatalf("the middleware's timeout did not apply: %+v after %v", info, time.Since(start))
			}
			if lines, _ := callLines(logs, name); len(lines) != 1 || lines[0]["outcome"] != "timeout" {
				t.Fatalf("want one log line with outcome timeout, got %v", lines)
			}
			n := 0
			for _, sp := range spans.Ended() {
				if sp.Name() == "tools/call "+name {
					n++
				}
			}
			if n != 1 {
				t.Fatalf("%d spans, want 1", n)
			}
		})
	}
}

// TestMaskedErrorsIsTheStrictRule: WithMaskedErrors masks a plain error
// whose text the default rule would show, and the log line says masked;
// classified errors keep their sentence.
func TestMaskedErrorsIsTheStrictRule(t *testing.T) {
	for _, c := range []struct {
		name   string
		opts   []wrap.Option
		masked bool
	}{{"default rule", nil, false}, {"strict", []wrap.Option{wrap.WithMaskedErrors()}, true}} {
		t.Run(c.name, func(t *testing.T) {
			var logs logbuf.Buffer
			s := server.NewMCPServer("files", "1.0.0")
			mcpgo.Attach(s, wrap.New(append(c.opts, wrap.WithLogger(logs.Logger()))...))
			s.AddTool(mcp.NewTool("quota"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return nil, errors.New("quota exhausted for this session")
			})
			s.AddTool(mcp.NewTool("gone"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return nil, errs.New(errs.NotFound, "no note named x.md")
			})
			conn := testserver.StartHTTP(t, s)
			text := firstText(conn.CallRaw(t, "quota", `{}`))
			if shown := strings.HasPrefix(text, "quota exhausted for this session (call id "); shown == c.masked {
				t.Fatalf("the model reads %q", text)
			}
			if lines, _ := callLines(&logs, "quota"); len(lines) != 1 || (lines[0]["masked"] == true) != c.masked {
				t.Fatalf("log line %v", lines)
			}
			if text := firstText(conn.CallRaw(t, "gone", `{}`)); !strings.Contains(text, "no note named x.md") {
				t.Fatalf("a classified error: %q", text)
			}
		})
	}
}
