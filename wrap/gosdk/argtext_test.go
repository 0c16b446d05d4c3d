package gosdk

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrap/mcpwrap/errs"
)

// TestGoSDKArgumentSentence fails when a go-sdk upgrade changes the
// sentence its typed tools answer bad arguments with, which argumentError
// reads (argtext.go): the adapter would then answer those calls as
// internal errors instead of invalid arguments.
func TestGoSDKArgumentSentence(t *testing.T) {
	type in struct {
		City string `json:"city"`
		Days int    `json:"days"`
		Line uint32 `json:"line,omitempty"`
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "probe", Version: "1"}, nil)
	var got []error
	s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			if r, ok := res.(*mcp.CallToolResult); ok && r != nil && r.GetError() != nil {
				got = append(got, r.GetError())
			}
			return res, err
		}
	})
	mcp.AddTool(s, &mcp.Tool{Name: "typed"}, func(context.Context, *mcp.CallToolRequest, in) (*mcp.CallToolResult, any, error) {
		return nil, nil, nil
	})
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	for _, args := range []string{`{"city":"Rome","days":"three"}`, `{}`, `[1]`, `{"city":"Rome","days":1,"line":99999999999}`} {
		if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "typed", Arguments: json.RawMessage(args)}); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{
		`validating "arguments": validating root: validating /properties/days: type: three has type "string", want "integer"`,
		`validating "arguments": validating root: required: missing properties: ["city" "days"]`,
		`validating "arguments": unmarshaling arguments: `,
		`validating "arguments": validating root: validating /properties/line: maximum: 99999999999/1 is greater than 4294967295.000000`,
	}
	if len(got) != len(want) {
		t.Fatalf("go-sdk recorded %d errors, want %d: %v", len(got), len(want), got)
	}
	for i, w := range want {
		if !strings.HasPrefix(got[i].Error(), w) {
			t.Errorf("go-sdk changed its argument sentence:\n got %q\nwant %q…", got[i], w)
		}
		if _, ok := argumentError(got[i], nil); !ok {
			t.Errorf("argumentError does not recognise %q", got[i])
		}
	}
}

func TestArgumentError(t *testing.T) {
	for _, c := range []struct{ in, params, msg string }{
		{`validating "arguments": validating root: validating /properties/days: type: three has type "string", want "integer"`,
			"days", `parameter "days" must be an integer, got a string`},
		{`validating "arguments": validating root: required: missing properties: ["city" "days"]`,
			"city,days", `parameter "city" is required; parameter "days" is required`},
		{`validating "arguments": validating root: validating /properties/a: validating /properties/a/items: validating /properties/a/items/properties/b: minimum: 0 is less than 1.000000`,
			"a[].b", `parameter "a[].b" must be at least 1, got 0`},
		// A uint32 field given a number it cannot hold (jsonschema-go's big.Rat and %f).
		{`validating "arguments": validating root: validating /properties/line: maximum: 99999999999/1 is greater than 4294967295.000000`,
			"line", `parameter "line" must be at most 4294967295, got 99999999999`},
		{`validating "arguments": validating root: validating /properties/line: minimum: -1/1 is less than 0.000000`,
			"line", `parameter "line" must be at least 0, got -1`},
		{`validating "arguments": validating root: validating /properties/ratio: exclusiveMaximum: 3/2 is greater than or equal to 1.500000`,
			"ratio", `parameter "ratio" must be less than 1.5, got 1.5`},
		{`validating "arguments": validating root: unexpected additional properties ["cty"]`,
			"cty", `unknown parameter "cty"`},
	} {
		err, ok := argumentError(errors.New(c.in), nil)
		var e *errs.Error
		if !ok || !errors.As(err, &e) || e.Code() != errs.InvalidArgument {
			t.Fatalf("%s: %v", c.in, err)
		}
		var ps, ms []string
		for _, v := range e.Violations() {
			ps = append(ps, v.Parameter)
			ms = append(ms, v.Message)
		}
		if strings.Join(ps, ",") != c.params || !strings.HasPrefix(strings.Join(ms, "; "), c.msg) {
			t.Errorf("%s:\n got %v %q\nwant %s %q", c.in, ps, ms, c.params, c.msg)
		}
	}
	if _, ok := argumentError(errors.New("login failed"), nil); ok {
		t.Error("a plain error is not an argument error")
	}
}
