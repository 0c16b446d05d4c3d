package wrap_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/internal/logbuf"
	"github.com/mcpwrap/mcpwrap/internal/obs"
	"github.com/mcpwrap/mcpwrap/internal/obstest"
	"github.com/mcpwrap/mcpwrap/internal/testserver"
	"github.com/mcpwrap/mcpwrap/validate"
	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/mcpgo"
)

type weatherArgs struct {
	City  string `json:"city" validate:"required" description:"City name, e.g. Paris"`
	Days  int    `json:"days" validate:"omitempty,min=1,max=14"`
	Units string `json:"units" validate:"omitempty,oneof=metric imperial"`
}

type weatherOut struct {
	City  string  `json:"city" validate:"required"`
	TempC float64 `json:"temp_c" validate:"gte=-90,lte=60"`
}

func firstText(res *mcp.CallToolResult) string {
	if len(res.Content) > 0 {
		if tc, ok := res.Content[0].(mcp.TextContent); ok {
			return tc.Text
		}
	}
	return ""
}

func TestTypedOverHTTP(t *testing.T) {
	var logs logbuf.Buffer
	var calls atomic.Int32
	w := wrap.New(wrap.WithLogger(logs.Logger()))
	s := server.NewMCPServer("typed", "1.0.0")
	s.AddTools(
		mcpgo.Typed(w, mcp.NewTool("forecast"), func(_ context.Context, _ mcp.CallToolRequest, a weatherArgs) (*mcp.CallToolResult, error) {
			calls.Add(1)
			return mcp.NewToolResultText(a.City + " " + a.Units), nil
		}),
		mcpgo.Typed(w, mcp.NewTool("current"), func(_ context.Context, _ mcp.CallToolRequest, a weatherArgs) (weatherOut, error) {
			if a.City == "Mars" {
				return weatherOut{City: a.City, TempC: -120}, nil
			}
			return weatherOut{City: a.City, TempC: 21.5}, nil
		}),
	)
	c := testserver.StartHTTP(t, s)

	t.Run("valid call reaches the handler with typed arguments", func(t *testing.T) {
		res := c.CallRaw(t, "forecast", `{"city":"Paris","units":"metric"}`)
		if res.IsError || firstText(res) != "Paris metric" {
			t.Fatalf("got isError=%v %q", res.IsError, firstText(res))
		}
	})
	t.Run("invalid call never reaches the handler", func(t *testing.T) {
		before := calls.Load()
		res := c.CallRaw(t, "forecast", `{"cty":"Paris","days":30}`)
		if calls.Load() != before {
			t.Fatal("handler ran on invalid input")
		}
		want := `invalid arguments for tool "forecast": parameter "city" is required; unknown parameter "cty"; did you mean "city"?; parameter "days" must be between 1 and 14, got 30`
		if firstText(res) != want {
			t.Fatalf("text\n got %s\nwant %s", firstText(res), want)
		}
		info, ok := mcpgo.InfoOf(res)
		if !ok || info.Code != "invalid_argument" || len(info.Violations) != 3 || info.CallID == "" {
			t.Fatalf("structuredContent: %+v", info)
		}
		lines, err := logs.Find("call_id", info.CallID)
		if err != nil || len(lines) != 1 {
			t.Fatalf("log lines for the call: %v %v", lines, err)
		}
		if lines[0]["outcome"] != "invalid_argument" || lines[0]["level"] != "WARN" ||
			!strings.Contains(lines[0]["cause"].(string), `parameter "days" must be between 1 and 14, got 30`) {
			t.Fatalf("log line: %v", lines[0])
		}
	})
	t.Run("structured result", func(t *testing.T) {
		res := c.CallRaw(t, "current", `{"city":"Paris"}`)
		if res.IsError {
			t.Fatal(firstText(res))
		}
		if firstText(res) != `{"city":"Paris","temp_c":21.5}` {
			t.Fatalf("text %q", firstText(res))
		}
		sc, _ := json.Marshal(res.StructuredContent)
		if string(sc) != `{"city":"Paris","temp_c":21.5}` {
			t.Fatalf("structuredContent %s", sc)
		}
	})
	t.Run("broken result is an internal error", func(t *testing.T) {
		res := c.CallRaw(t, "current", `{"city":"Mars"}`)
		info, ok := mcpgo.InfoOf(res)
		if !ok || info.Code != "internal" || strings.Contains(firstText(res), "temp_c") {
			t.Fatalf("model must get the generic internal error, got %q", firstText(res))
		}
		lines, err := logs.Find("call_id", info.CallID)
		if err != nil || len(lines) != 1 || lines[0]["level"] != "ERROR" ||
			!strings.Contains(lines[0]["cause"].(string), `parameter "temp_c" must be between -90 and 60, got -120`) {
			t.Fatalf("operator must see why: %v %v", lines, err)
		}
	})
	t.Run("tools/list advertises the derived schemas", func(t *testing.T) {
		list, err := c.Client.ListTools(context.Background(), mcp.ListToolsRequest{})
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		for _, tl := range list.Tools {
			raw, err := json.Marshal(tl)
			if err != nil {
				t.Fatal(err)
			}
			got[tl.Name] = string(raw)
		}
		for name, want := range map[string][]string{
			"forecast": {`"required":["city"]`, `"additionalProperties":false`, `"maximum":14`, `"minimum":1`, `"enum":["metric","imperial"]`, `"description":"City name, e.g. Paris"`},
			"current":  {`"outputSchema":{`, `"temp_c":{"maximum":60,"minimum":-90,"type":"number"}`},
		} {
			for _, w := range want {
				if !strings.Contains(got[name], w) {
					t.Errorf("tool %s: want %s in %s", name, w, got[name])
				}
			}
		}
	})
}

// panicked returns what f panicked with, as an error; nil when it did not.
func panicked(f func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			e, ok := r.(error)
			if !ok {
				e = fmt.Errorf("%v", r)
			}
			err = e
		}
	}()
	f()
	return nil
}

func TestTypedRejectsBadStructsAtStartup(t *testing.T) {
	cases := []struct {
		name string
		try  func() error
		want string
	}{
		{"unknown rule", func() error {
			type a struct {
				X string `json:"x" validate:"required,nosuchrule"`
			}
			return panicked(func() {
				mcpgo.Typed(nil, mcp.NewTool("t"), func(context.Context, mcp.CallToolRequest, a) (*mcp.CallToolResult, error) { return nil, nil })
			})
		}, "nosuchrule"},
		{"bad parameter", func() error {
			type a struct {
				X string `json:"x" validate:"required,min=abc"`
			}
			_, err := validate.New[a]()
			return err
		}, "invalid validate tag"},
		{"optional field whose zero fails", func() error {
			type a struct {
				Days int `json:"days" validate:"min=1,max=14"`
			}
			_, err := validate.New[a]()
			return err
		}, `field "days": leaving it out fails its rule "min"`},
		{"not a struct", func() error {
			_, err := validate.New[[]string]()
			return err
		}, "not a struct"},
		{"unsupported type", func() error {
			type a struct {
				C chan int `json:"c"`
			}
			_, err := validate.New[a]()
			return err
		}, "cannot come from JSON"},
		{"nil handler", func() error {
			return panicked(func() { mcpgo.Typed[weatherArgs, *mcp.CallToolResult](nil, mcp.NewTool("t"), nil) })
		}, "nil handler"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.try()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

// TestBeforeAfterMessages produces, for the same bad call, mcp-go's own
// schema-validation text and ours; the README quotes both.
func TestBeforeAfterMessages(t *testing.T) {
	b := validate.MustNew[weatherArgs]()
	plain := server.NewMCPServer("before", "1.0.0", server.WithInputSchemaValidation())
	plain.AddTool(mcp.NewToolWithRawSchema("forecast", "", b.Schema()), func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var a weatherArgs
		if err := req.BindArguments(&a); err != nil {
			return nil, err
		}
		return mcp.NewToolResultText(a.City), nil
	})
	ours := server.NewMCPServer("after", "1.0.0")
	ours.AddTools(mcpgo.Typed(nil, mcp.NewTool("forecast"), func(_ context.Context, _ mcp.CallToolRequest, a weatherArgs) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText(a.City), nil
	}))
	const bad = `{"cty":"Paris","days":30}`
	before := firstText(testserver.StartHTTP(t, plain).CallRaw(t, "forecast", bad))
	after := firstText(testserver.StartHTTP(t, ours).CallRaw(t, "forecast", bad))
	t.Logf("before: %s", before)
	t.Logf("after:  %s", after)
	if !strings.HasPrefix(before, "input schema validation failed: ") {
		t.Fatalf("mcp-go's text changed: %s", before)
	}
	if !strings.Contains(after, `did you mean "city"?`) || !strings.Contains(after, `between 1 and 14, got 30`) {
		t.Fatalf("ours: %s", after)
	}
}

type unlockArgs struct {
	Door        string `json:"door" validate:"required"`
	Combination string `json:"combination" validate:"required,min=20" mcpwrap:"secret"`
}

// TestTypedSecretTagReachesTheLog: a parameter tagged mcpwrap:"secret" whose
// name is not a known secret name used to be logged in clear by the
// observer (logging argument values), because only validate read the tag.
func TestTypedSecretTagReachesTheLog(t *testing.T) {
	const passphrase = "correct-horse-battery"
	var logs logbuf.Buffer
	w := wrap.New(obstest.WithObserver(obs.New(obs.WithLogger(logs.Logger()), obs.WithArgumentValues(),
		obs.WithoutTracing(), obs.WithoutMetrics())))
	s := server.NewMCPServer("t", "1")
	s.AddTools(mcpgo.Typed(w, mcp.NewTool("unlock"), func(_ context.Context, _ mcp.CallToolRequest, a unlockArgs) (*mcp.CallToolResult, error) {
		return nil, errs.Newf(errs.PermissionDenied, "door %s stays locked", a.Door)
	}))
	conn := testserver.StartHTTP(t, s)
	ok := conn.CallRaw(t, "unlock", `{"door":"front","combination":"`+passphrase+`"}`)
	short := conn.CallRaw(t, "unlock", `{"door":"front","combination":"`+passphrase[:8]+`"}`)
	if info, _ := mcpgo.InfoOf(ok); info.Code != "permission_denied" {
		t.Fatalf("bound call: %+v", info)
	}
	for _, res := range []*mcp.CallToolResult{ok, short} {
		raw, _ := json.Marshal(res)
		if strings.Contains(string(raw), passphrase[:8]) {
			t.Fatalf("secret in the result: %s", raw)
		}
	}
	lines, err := logs.Find("tool", "unlock")
	if err != nil || len(lines) != 2 {
		t.Fatalf("want 2 log lines, got %d (%v)", len(lines), err)
	}
	if strings.Contains(logs.String(), passphrase[:8]) {
		t.Fatalf("secret in the log: %s", logs.String())
	}
	if !strings.Contains(logs.String(), `"door":"front"`) {
		t.Fatalf("non-secret arguments should still be logged: %s", logs.String())
	}
}

type summaryArgs struct {
	Topic string `json:"topic" validate:"required" description:"What to summarise"`
	Style string `json:"style" validate:"omitempty,oneof=short long" description:"short or long"`
}

// TestTypedPrompt checks that a typed prompt advertises its struct's
// arguments and answers bad ones with -32602 naming each, over HTTP.
func TestTypedPrompt(t *testing.T) {
	w := wrap.New(wrap.WithLogger((&logbuf.Buffer{}).Logger()), wrap.WithTimeout(time.Second))
	s := server.NewMCPServer("notes", "1.0.0", attached(w))
	called := 0
	s.AddPrompts(mcpgo.TypedPrompt(mcp.NewPrompt("summary"),
		func(_ context.Context, _ mcp.GetPromptRequest, a summaryArgs) (*mcp.GetPromptResult, error) {
			called++
			return mcp.NewGetPromptResult("summary", []mcp.PromptMessage{
				mcp.NewPromptMessage(mcp.RoleUser, mcp.NewTextContent("Summarise "+a.Topic+" ("+a.Style+")"))}), nil
		}))
	conn := testserver.StartHTTP(t, s, client.WithProtocolVersion("2025-11-25"))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	list, err := conn.Client.ListPrompts(ctx, mcp.ListPromptsRequest{})
	if err != nil || len(list.Prompts) != 1 {
		t.Fatalf("list = %v, %v", list, err)
	}
	want := []mcp.PromptArgument{
		{Name: "style", Description: "short or long"},
		{Name: "topic", Description: "What to summarise", Required: true},
	}
	if got := list.Prompts[0].Arguments; !slices.Equal(got, want) {
		t.Errorf("arguments = %+v, want %+v", got, want)
	}

	for _, c := range []struct {
		name string
		args map[string]string
		says string
	}{
		{"missing", map[string]string{"style": "short"}, `parameter "topic" is required`},
		{"not one of", map[string]string{"topic": "tides", "style": "epic"}, `parameter "style" must be one of`},
		{"unknown", map[string]string{"topic": "tides", "tpoic": "x"}, `unknown parameter "tpoic"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			conn.Wire.Reset()
			_, err := conn.Client.GetPrompt(ctx, mcp.GetPromptRequest{Params: mcp.GetPromptParams{Name: "summary", Arguments: c.args}})
			if err == nil {
				t.Fatal("bad arguments accepted")
			}
			checkError(t, lastError(t, conn.Wire), mcp.INVALID_PARAMS, c.says)
		})
	}
	if called != 0 {
		t.Errorf("the handler ran %d times on bad arguments", called)
	}
	res, err := conn.Client.GetPrompt(ctx, mcp.GetPromptRequest{Params: mcp.GetPromptParams{Name: "summary",
		Arguments: map[string]string{"topic": "tides", "style": "long"}}})
	if err != nil || len(res.Messages) != 1 || res.Messages[0].Content.(mcp.TextContent).Text != "Summarise tides (long)" {
		t.Fatalf("get = %+v, %v", res, err)
	}
}
