package mcpgo_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/mcpwrap/mcpwrap/wrap/mcpgo"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/internal/errmap"
)

// request decodes a tools/call the way mcp-go's server does.
func request(t *testing.T, args string) mcp.CallToolRequest {
	t.Helper()
	var req mcp.CallToolRequest
	msg := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read_file","arguments":` + args + `}}`
	if err := json.Unmarshal([]byte(msg), &req); err != nil {
		t.Fatal(err)
	}
	return req
}

// TestArgumentErrorRecognisesEveryRequireHelper calls mcp-go's own helpers
// on real requests: if an mcp-go upgrade rewords them, this fails instead
// of the model silently getting "internal error" again.
func TestArgumentErrorRecognisesEveryRequireHelper(t *testing.T) {
	helpers := map[string]func(mcp.CallToolRequest, string) error{
		"RequireString":      func(r mcp.CallToolRequest, k string) error { _, err := r.RequireString(k); return err },
		"RequireInt":         func(r mcp.CallToolRequest, k string) error { _, err := r.RequireInt(k); return err },
		"RequireFloat":       func(r mcp.CallToolRequest, k string) error { _, err := r.RequireFloat(k); return err },
		"RequireBool":        func(r mcp.CallToolRequest, k string) error { _, err := r.RequireBool(k); return err },
		"RequireStringSlice": func(r mcp.CallToolRequest, k string) error { _, err := r.RequireStringSlice(k); return err },
		"RequireIntSlice":    func(r mcp.CallToolRequest, k string) error { _, err := r.RequireIntSlice(k); return err },
		"RequireFloatSlice":  func(r mcp.CallToolRequest, k string) error { _, err := r.RequireFloatSlice(k); return err },
		"RequireBoolSlice":   func(r mcp.CallToolRequest, k string) error { _, err := r.RequireBoolSlice(k); return err },
	}
	cases := []struct {
		helper, args, param, rule, got string
	}{
		{"RequireString", `{}`, "path", "required", ""},
		{"RequireString", `{"path":7}`, "path", "type", "number"},
		{"RequireInt", `{}`, "path", "required", ""},
		{"RequireInt", `{"path":"seven"}`, "path", "type", "string"},
		{"RequireInt", `{"path":true}`, "path", "type", "boolean"},
		{"RequireFloat", `{"path":"x"}`, "path", "type", "string"},
		{"RequireFloat", `{"path":[1]}`, "path", "type", "array"},
		{"RequireBool", `{"path":"maybe"}`, "path", "type", "string"},
		{"RequireBool", `{"path":{}}`, "path", "type", "object"},
		{"RequireStringSlice", `{"path":"a"}`, "path", "type", "string"},
		{"RequireStringSlice", `{"path":["a",3]}`, "path[1]", "type", "number"},
		{"RequireIntSlice", `{"path":7}`, "path", "type", "number"},
		{"RequireIntSlice", `{"path":[1,"x"]}`, "path[1]", "type", "string"},
		{"RequireIntSlice", `{"path":[true]}`, "path[0]", "type", "boolean"},
		{"RequireFloatSlice", `{"path":{}}`, "path", "type", "object"},
		{"RequireFloatSlice", `{"path":[1,"x"]}`, "path[1]", "type", "string"},
		{"RequireFloatSlice", `{"path":[null]}`, "path[0]", "type", "null"},
		{"RequireBoolSlice", `{"path":1}`, "path", "type", "number"},
		{"RequireBoolSlice", `{"path":[true,"perhaps"]}`, "path[1]", "type", "string"},
		{"RequireBoolSlice", `{"path":[{}]}`, "path[0]", "type", "object"},
	}
	for _, c := range cases {
		t.Run(c.helper+" "+c.args, func(t *testing.T) {
			req := request(t, c.args)
			herr := helpers[c.helper](req, "path")
			if herr == nil {
				t.Fatalf("mcp-go's %s accepted %s", c.helper, c.args)
			}
			for _, err := range []error{herr, fmt.Errorf("read_file: %w", herr)} {
				e, ok := mcpgo.ArgumentError(err, req)
				if !ok {
					t.Fatalf("%q not recognised", err)
				}
				if e.Code() != errs.InvalidArgument || e.Message() != herr.Error() {
					t.Errorf("got %v %q, want invalid_argument %q", e.Code(), e.Message(), herr.Error())
				}
				v := e.Violations()
				if len(v) != 1 || v[0].Parameter != c.param || v[0].Rule != c.rule || v[0].Got != c.got || v[0].Message != herr.Error() {
					t.Errorf("violations %+v, want parameter %q rule %q got %q", v, c.param, c.rule, c.got)
				}
				res := errmap.ToResult(e, errmap.Call{Tool: "read_file"})
				want := `invalid arguments for tool "read_file": ` + herr.Error()
				if got := res.Text; got != want {
					t.Errorf("model reads %q, want %q", got, want)
				}
			}
		})
	}
}

type forecastArgs struct {
	City string `json:"city"`
	Days int    `json:"days"`
	Opts struct {
		Units []string `json:"units"`
	} `json:"opts"`
}

func TestArgumentErrorRecognisesBindArguments(t *testing.T) {
	cases := []struct {
		name, args, param, expected, got string
	}{
		{"string for int", `{"city":"Paris","days":"three"}`, "days", "an integer", "string"},
		{"huge number", `{"days":1e300}`, "days", "an integer between -9223372036854775808 and 9223372036854775807", "number"},
		{"number for string", `{"city":7}`, "city", "a string", "number"},
		{"nested", `{"opts":{"units":"metric"}}`, "opts.units", "an array", "string"},
		{"nested item", `{"opts":{"units":["c",5]}}`, "opts.units", "a string", "number"},
		{"not an object", `["Paris"]`, "", "an object", "array"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, form := range []string{"raw", "map"} {
				req := request(t, c.args)
				if form == "map" { // an in-process call: no raw bytes
					req.Params.RawArguments = nil
				}
				var a forecastArgs
				berr := req.BindArguments(&a)
				var ute *json.UnmarshalTypeError
				if !errors.As(berr, &ute) {
					t.Fatalf("%s: BindArguments gave %v, want a *json.UnmarshalTypeError", form, berr)
				}
				e, ok := mcpgo.ArgumentError(fmt.Errorf("bind: %w", berr), req)
				if !ok {
					t.Fatalf("%s: %v not recognised", form, berr)
				}
				v := e.Violations()
				// Under GOEXPERIMENT=jsonv2 an array item's path has its
				// index: "opts.units[1]" for "opts.units".
				if e.Code() != errs.InvalidArgument || len(v) != 1 || !sameParam(v[0].Parameter, c.param) ||
					v[0].Expected != c.expected || v[0].Got != c.got {
					t.Errorf("%s: got %v %q %+v", form, e.Code(), e.Message(), v)
				}
			}
		})
	}
}

// TestArgumentErrorIgnoresWhatTheRequestDoesNotBearOut: a JSON error from
// decoding an upstream's answer, or an mcp-go sentence about an argument
// the request has, stays unrecognised (and masked).
func TestArgumentErrorIgnoresWhatTheRequestDoesNotBearOut(t *testing.T) {
	decode := func(body string) error {
		var v struct {
			City int `json:"city"`
		}
		return json.Unmarshal([]byte(body), &v)
	}
	cases := []struct {
		name string
		args string
		err  error
	}{
		{"upstream field absent from the request", `{"days":3}`, decode(`{"city":"Lyon"}`)},
		{"same path, other kind", `{"city":5}`, decode(`{"city":"Lyon"}`)},
		{"same path and kind, other place", `{"note":"a long note first","city":"Paris"}`, decode(`{"city":"Lyon"}`)},
		{"sentence without the fault", `{"path":"a.txt"}`, errors.New(`required argument "path" not found`)},
		{"sentence about a string that is one", `{"path":"a.txt"}`, errors.New(`argument "path" is not a string`)},
		{"other text", `{}`, errors.New("connection reset")},
		{"explicit code wins", `{}`, errs.Wrap(errs.Internal, errors.New(`required argument "path" not found`), "")},
		{"nil", `{}`, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if e, ok := mcpgo.ArgumentError(c.err, request(t, c.args)); ok {
				t.Fatalf("recognised %v as %v", c.err, e)
			}
		})
	}
}

func TestArgumentResultRecognisesMCPGoTypedHandlers(t *testing.T) {
	called := false
	typed := mcp.NewTypedToolHandler(func(context.Context, mcp.CallToolRequest, forecastArgs) (*mcp.CallToolResult, error) {
		called = true
		return mcp.NewToolResultText("ok"), nil
	})
	structured := mcp.NewStructuredToolHandler(func(context.Context, mcp.CallToolRequest, forecastArgs) (forecastArgs, error) {
		called = true
		return forecastArgs{}, nil
	})
	cases := []struct {
		args, param, expected, got string
	}{
		{`{"days":"three"}`, "days", "an integer", "string"},
		{`{"opts":{"units":[1]}}`, "opts.units", "a string", "number"},
		{`{"city":true}`, "city", "a string", "boolean"},
	}
	for _, c := range cases {
		for name, h := range map[string]func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error){"typed": typed, "structured": structured} {
			t.Run(name+" "+c.args, func(t *testing.T) {
				req := request(t, c.args)
				res, err := h(t.Context(), req)
				if err != nil || called || !res.IsError {
					t.Fatalf("mcp-go's %s handler accepted %s: %v %+v", name, c.args, err, res)
				}
				e, ok := mcpgo.ArgumentResult(res, req)
				if !ok {
					t.Fatalf("%q not recognised", res.Content[0].(mcp.TextContent).Text)
				}
				v := e.Violations()
				if e.Code() != errs.InvalidArgument || len(v) != 1 || !sameParam(v[0].Parameter, c.param) || v[0].Expected != c.expected || v[0].Got != c.got {
					t.Fatalf("got %v %q %+v", e.Code(), e.Message(), v)
				}
			})
		}
	}
	// The same sentence about an argument the request does not hold, and a
	// handler's own isError, are left alone.
	for _, res := range []*mcp.CallToolResult{
		mcp.NewToolResultError("failed to bind arguments: json: cannot unmarshal string into Go struct field Args.days of type int"),
		mcp.NewToolResultError("no such city"),
	} {
		if _, ok := mcpgo.ArgumentResult(res, request(t, `{"days":3}`)); ok {
			t.Fatalf("recognised %+v", res)
		}
	}
}

// sameParam reports whether got names want, or an item of it (jsonv2
// reports the index of the item).
func sameParam(got, want string) bool {
	return got == want || (want != "" && strings.HasPrefix(got, want+"[") && strings.HasSuffix(got, "]"))
}

// TestArgumentErrorRecognisesAServersOwnDecodeSentence: mcp-grafana decodes
// the arguments itself and returns fmt.Errorf("unmarshal args: %s", err),
// keeping only the text; a wrong type from the model was logged as an
// internal fault (ERROR) instead of the caller's mistake.
func TestArgumentErrorRecognisesAServersOwnDecodeSentence(t *testing.T) {
	type filter struct {
		Limit int `json:"limit"`
	}
	type params struct {
		IncidentID string `json:"incidentId"`
		Filter     filter `json:"filter"`
	}
	decode := func(args string) error {
		var p params
		err := json.Unmarshal([]byte(args), &p)
		if err == nil {
			t.Fatalf("%s decoded", args)
		}
		return fmt.Errorf("unmarshal args: %s", err)
	}
	for _, c := range []struct{ args, param, expected, got string }{
		{`{"incidentId":1}`, "incidentId", "a string", "number"},
		{`{"filter":{"limit":"ten"}}`, "filter.limit", "an integer", "string"},
	} {
		t.Run(c.args, func(t *testing.T) {
			e, ok := mcpgo.ArgumentError(decode(c.args), request(t, c.args))
			if !ok {
				t.Fatalf("%q not recognised", decode(c.args))
			}
			v := e.Violations()
			if e.Code() != errs.InvalidArgument || len(v) != 1 || v[0].Parameter != c.param || v[0].Expected != c.expected || v[0].Got != c.got {
				t.Fatalf("got %v %q %+v", e.Code(), e.Message(), v)
			}
		})
	}
	// The same sentence when the arguments do not bear it out (an upstream's
	// answer that failed to decode), and one about a whole value, are not
	// the caller's mistake.
	for _, c := range []struct {
		err  error
		args string
	}{
		{decode(`{"incidentId":1}`), `{"incidentId":"abc"}`},
		{fmt.Errorf("decode answer: %s", json.Unmarshal([]byte(`{"a":1}`), new([]string))), `{"a":1}`},
	} {
		if e, ok := mcpgo.ArgumentError(c.err, request(t, c.args)); ok {
			t.Errorf("%q with %s recognised as %q", c.err, c.args, e.Message())
		}
	}
}
