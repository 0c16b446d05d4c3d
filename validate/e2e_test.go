package validate_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/internal/binding"
	"github.com/mcpwrap/mcpwrap/internal/errmap"
	"github.com/mcpwrap/mcpwrap/internal/mcpgoerr"
	"github.com/mcpwrap/mcpwrap/internal/testserver"
	"github.com/mcpwrap/mcpwrap/validate"
	"github.com/mcpwrap/mcpwrap/wrap/mcpgo"
)

// boundTool registers a tool whose handler binds with b and answers the
// bound value as structuredContent, or the binding error through
// errmap.ToResult.
func boundTool[T any](s *server.MCPServer, name string, b *validate.Binder[T]) {
	s.AddTool(mcp.NewToolWithRawSchema(name, "", b.Schema()), func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		args, err := bindReq(b, req)
		if err != nil {
			return mcpgoerr.Result(errmap.ToResult(err, errmap.Call{Tool: req.Params.Name})), nil
		}
		j, err := json.Marshal(args)
		if err != nil {
			return nil, err
		}
		return mcp.NewToolResultText(string(j)), nil
	})
}

func startProbe(t *testing.T) *testserver.Conn {
	t.Helper()
	s := server.NewMCPServer("probe", "1.0.0")
	boundTool(s, "forecast", validate.MustNew[forecastArgs]())
	boundTool(s, "kitchen", validate.MustNew[kitchen]())
	boundTool(s, "loose", validate.MustNew[forecastArgs](validate.AllowUnknown()))
	return testserver.StartHTTP(t, s)
}

func text(res *mcp.CallToolResult) string {
	if len(res.Content) == 0 {
		return ""
	}
	if tc, ok := res.Content[0].(mcp.TextContent); ok {
		return tc.Text
	}
	return ""
}

// brief renders violations as "parameter|rule|got" lines.
func brief(vs []errs.Violation) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = v.Parameter + "|" + v.Rule + "|" + v.Got
	}
	return out
}

func TestBindOverHTTP(t *testing.T) {
	c := startProbe(t)
	const fprefix = `invalid arguments for tool "forecast": `
	cases := []struct {
		name  string
		tool  string
		args  string
		text  string   // the whole model-facing text, when set
		viols []string // parameter|rule|got, sorted
	}{
		{"between", "forecast", `{"city":"Paris","days":30}`,
			fprefix + `parameter "days" must be between 1 and 14, got 30`, []string{`days|max|30`}},
		{"below", "forecast", `{"city":"Paris","days":-2}`,
			fprefix + `parameter "days" must be between 1 and 14, got -2`, []string{`days|min|-2`}},
		{"required", "forecast", `{"days":3}`,
			fprefix + `parameter "city" is required`, []string{`city|required|`}},
		{"required but empty", "forecast", `{"city":""}`,
			fprefix + `parameter "city" must not be empty, got ""`, []string{`city|required|""`}},
		{"oneof", "forecast", `{"city":"Paris","units":"kelvin"}`,
			fprefix + `parameter "units" must be one of "metric", "imperial", got "kelvin"`, []string{`units|oneof|"kelvin"`}},
		{"type string for integer", "forecast", `{"city":"Paris","days":"three"}`,
			fprefix + `parameter "days" must be an integer, got the string "three"`, []string{`days|type|"three"`}},
		{"type fraction for integer", "forecast", `{"city":"Paris","days":2.5}`,
			fprefix + `parameter "days" must be an integer, got the number 2.5`, []string{`days|type|2.5`}},
		{"type number for string", "forecast", `{"city":42}`,
			fprefix + `parameter "city" must be a string, got the number 42`, []string{`city|type|42`}},
		{"type null", "forecast", `{"city":null}`,
			fprefix + `parameter "city" must be a string, got null`, []string{`city|type|null`}},
		{"type object", "forecast", `{"city":{"name":"Paris"}}`,
			fprefix + `parameter "city" must be a string, got an object`, []string{`city|type|`}},
		{"unknown close", "forecast", `{"cty":"Paris"}`,
			fprefix + `parameter "city" is required; unknown parameter "cty"; did you mean "city"?`, []string{`city|required|`, `cty|unknown|`}},
		{"unknown case", "forecast", `{"city":"Paris","Days":3}`,
			fprefix + `unknown parameter "Days"; did you mean "days"?`, []string{`Days|unknown|`}},
		{"unknown far", "forecast", `{"city":"Paris","verbose":true}`,
			fprefix + `unknown parameter "verbose"; known parameters are "city", "days", "units", "api_key"`, []string{`verbose|unknown|`}},
		{"unknown allowed", "loose", `{"city":"Paris","verbose":true}`, "", nil},
		{"secret never echoed", "forecast", `{"city":"Paris","api_key":"hunter2-s3cr3t"}`,
			fprefix + `parameter "api_key" must be exactly 8 characters long`, []string{`api_key|len|`}},
		{"secret type error", "forecast", `{"city":"Paris","api_key":12345678}`,
			fprefix + `parameter "api_key" must be a string, got a number`, []string{`api_key|type|`}},
		{"long value not echoed", "forecast", `{"city":"Paris","units":"` + strings.Repeat("x", 60) + `"}`,
			fprefix + `parameter "units" must be one of "metric", "imperial", got a string of 60 characters`, []string{`units|oneof|`}},
		{"missing arguments", "forecast", ``,
			fprefix + `the call has no arguments; expected an object with "city" (required), "days", "units", "api_key"`, []string{`|required|`}},
		{"null arguments", "forecast", `null`,
			fprefix + `the arguments must be a JSON object, got null; expected an object with "city" (required), "days", "units", "api_key"`, []string{`|type|`}},
		{"array arguments", "forecast", `["Paris",3]`,
			fprefix + `the arguments must be a JSON object, got an array of 2 items; expected an object with "city" (required), "days", "units", "api_key"`, []string{`|type|`}},
		{"string arguments", "forecast", `"Paris"`,
			fprefix + `the arguments must be a JSON object, got a string; expected an object with "city" (required), "days", "units", "api_key"`, []string{`|type|`}},
		{"many at once", "forecast", `{"cty":"Paris","days":"3","units":"K","extra":1}`,
			fprefix + `parameter "city" is required; unknown parameter "cty"; did you mean "city"?; parameter "days" must be an integer, got the string "3"; unknown parameter "extra"; known parameters are "city", "days", "units", "api_key"; parameter "units" must be one of "metric", "imperial", got "K"`,
			[]string{`city|required|`, `cty|unknown|`, `days|type|"3"`, `extra|unknown|`, `units|oneof|"K"`}},
		{"valid", "forecast", `{"city":"Paris","days":3,"units":"metric"}`, "", nil},

		// Every rule family, by JSON path.
		{"string min", "kitchen", `{"city":"P","name":"ab"}`, "", []string{`name|min|"ab"`}},
		{"string len", "kitchen", `{"city":"P","code":"abc"}`, "", []string{`code|len|"abc"`}},
		{"gt", "kitchen", `{"city":"P","count":-1}`, "", []string{`count|gt|-1`}},
		{"lt", "kitchen", `{"city":"P","count":100}`, "", []string{`count|lt|100`}},
		{"gte float", "kitchen", `{"city":"P","ratio":0.25}`, "", []string{`ratio|gte|0.25`}},
		{"lte float", "kitchen", `{"city":"P","ratio":2.5}`, "", []string{`ratio|lte|2.5`}},
		{"slice max", "kitchen", `{"city":"P","tags":["aa","bb","cc","dd"]}`, "", []string{`tags|max|4 items`}},
		{"dive into slice", "kitchen", `{"city":"P","tags":["aa","b"]}`, "", []string{`tags[1]|min|"b"`}},
		{"email", "kitchen", `{"city":"P","email":"nobody"}`, "", []string{`email|email|"nobody"`}},
		{"url", "kitchen", `{"city":"P","url":"example.com"}`, "", []string{`url|url|"example.com"`}},
		{"uri", "kitchen", `{"city":"P","uri":"::"}`, "", []string{`uri|uri|"::"`}},
		{"uuid", "kitchen", `{"city":"P","id":"123"}`, "", []string{`id|uuid|"123"`}},
		{"hostname", "kitchen", `{"city":"P","host":"-bad-"}`, "", []string{`host|hostname|"-bad-"`}},
		{"ip", "kitchen", `{"city":"P","ip":"1.2.3"}`, "", []string{`ip|ip|"1.2.3"`}},
		{"datetime", "kitchen", `{"city":"P","when":"2026-13-01"}`, "", []string{`when|datetime|"2026-13-01"`}},
		{"alphanum", "kitchen", `{"city":"P","slug":"a-b"}`, "", []string{`slug|alphanum|"a-b"`}},
		{"startswith", "kitchen", `{"city":"P","prefix":"xab"}`, "", []string{`prefix|startswith|"xab"`}},
		{"endswith", "kitchen", `{"city":"P","suffix":"yzx"}`, "", []string{`suffix|endswith|"yzx"`}},
		{"contains", "kitchen", `{"city":"P","has":"nope"}`, "", []string{`has|contains|"nope"`}},
		{"excludes", "kitchen", `{"city":"P","no_slash":"a/b"}`, "", []string{`no_slash|excludes|"a/b"`}},
		{"dive into map values and keys", "kitchen", `{"city":"P","labels":{"a":9,"bb":1}}`, "", []string{`labels[a]|max|9`, `labels[a]|min|"a"`}},
		{"map value type", "kitchen", `{"city":"P","labels":{"bb":"x"}}`, "", []string{`labels[bb]|type|"x"`}},
		{"nested pointer struct", "kitchen", `{"city":"P","address":{"zip":"123x"}}`, "",
			[]string{`address.street|required|`, `address.zip|len|"123x"`}},
		{"second rule of a field", "kitchen", `{"city":"P","address":{"street":"x","zip":"1234x"}}`, "", []string{`address.zip|numeric|"1234x"`}},
		{"nested unknown", "kitchen", `{"city":"P","address":{"street":"x","zip":"12345","stret":"y"}}`, "", []string{`address.stret|unknown|`}},
		{"null pointer is absent", "kitchen", `{"city":"P","address":null}`, "", nil},
		{"slice of structs", "kitchen", `{"city":"P","filters":[{"field":"a"},{"field":"b"},{"since":"yesterday"}]}`, "",
			[]string{`filters[2].field|required|`, `filters[2].since|datetime|"yesterday"`}},
		{"array where object expected", "kitchen", `{"city":"P","filters":[1]}`, "", []string{`filters[0]|type|1`}},
		{"unknown rule falls back", "kitchen", `{"city":"P","custom":"x"}`, "", []string{`custom|ulid|"x"`}},
		{"int8 range", "kitchen", `{"city":"P","small":300}`, "", []string{`small|range|300`}},
		{"uint negative", "kitchen", `{"city":"P","count_u":-1}`, "", []string{`count_u|range|-1`}},
		{"big integer keeps every digit", "kitchen", `{"city":"P","big":9007199254740993}`, "", nil},
		// A big integer makes the arguments decode again, exactly: a fraction
		// is still the wrong type there, not a number out of range.
		{"fraction beside a big integer", "kitchen", `{"city":"P","big":9007199254740993,"small":2.5}`, "", []string{`small|type|2.5`}},
		{"time.Time field", "kitchen", `{"city":"P","at":"not a time"}`, "", []string{`at|datetime|"not a time"`}},
		{"gt on time", "kitchen", `{"city":"P","at":"2001-01-01T00:00:00Z"}`, "", []string{`at|gt|2001-01-01T00:00:00Z`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := c.CallRaw(t, tc.tool, tc.args)
			info, isErr := mcpgo.InfoOf(res)
			if tc.viols == nil {
				if res.IsError {
					t.Fatalf("want success, got %q", text(res))
				}
				return
			}
			if !isErr || info.Code != "invalid_argument" {
				t.Fatalf("want an invalid_argument result, got isError=%v %q", res.IsError, text(res))
			}
			if tc.text != "" && text(res) != tc.text {
				t.Errorf("text\n got %s\nwant %s", text(res), tc.text)
			}
			if got := brief(info.Violations); strings.Join(got, "\n") != strings.Join(tc.viols, "\n") {
				t.Errorf("violations\n got %q\nwant %q", got, tc.viols)
			}
			for _, v := range info.Violations {
				if v.Message == "" || (v.Rule != "unknown" && v.Rule != "required" && v.Expected == "") {
					t.Errorf("violation %+v lacks a message or an expectation", v)
				}
				if strings.Contains(v.Message, "hunter2") || strings.Contains(text(res), "hunter2") {
					t.Errorf("secret echoed: %q", text(res))
				}
			}
		})
	}
}

// TestBigIntegerExact checks that an int64 beyond 2^53 arrives exactly,
// though mcp-go decodes arguments into float64.
func TestBigIntegerExact(t *testing.T) {
	c := startProbe(t)
	res := c.CallRaw(t, "kitchen", `{"city":"P","big":9007199254740993}`)
	if res.IsError {
		t.Fatal(text(res))
	}
	if raw := text(res); !strings.Contains(raw, `"big":9007199254740993`) {
		t.Fatalf("big integer lost precision: %s", raw)
	}
}

// toCall is the request the chain hands a binder, as the mcp-go adapter
// builds it.
// bindReq binds a call's arguments as the mcp-go adapter does: the decoded
// arguments with the raw ones.
func bindReq[T any](b *validate.Binder[T], req mcp.CallToolRequest) (T, error) {
	return binding.Bind[T](b, req.Params.Arguments, req.Params.RawArguments)
}

type orderArgs struct {
	Items []filter   `json:"items" validate:"dive"`
	Rows  [][]string `json:"rows" validate:"dive,dive,min=2"`
}

// TestViolationsInIndexOrder: violations were sorted as strings, so the
// model read items[10] before items[2] (and rows[1][10] before rows[1][9]).
func TestViolationsInIndexOrder(t *testing.T) {
	s := server.NewMCPServer("probe", "1.0.0")
	boundTool(s, "order", validate.MustNew[orderArgs]())
	c := testserver.StartHTTP(t, s)
	cases := []struct {
		name, args string
		want       []string // parameters, in order
	}{
		{"list", `{"items":[{},{},{},{},{},{},{},{},{},{},{},{}]}`, []string{
			"items[0].field", "items[1].field", "items[2].field", "items[3].field", "items[4].field", "items[5].field",
			"items[6].field", "items[7].field", "items[8].field", "items[9].field", "items[10].field", "items[11].field"}},
		{"nested", `{"rows":[["o"],["a","b","c","d","e","f","g","h","i","j","k"]],"items":[{"field":"f"},{}]}`, []string{
			"items[1].field", "rows[0][0]",
			"rows[1][0]", "rows[1][1]", "rows[1][2]", "rows[1][3]", "rows[1][4]", "rows[1][5]",
			"rows[1][6]", "rows[1][7]", "rows[1][8]", "rows[1][9]", "rows[1][10]"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := c.CallRaw(t, "order", tc.args)
			info, ok := mcpgo.InfoOf(res)
			if !ok {
				t.Fatalf("not an error result: %s", text(res))
			}
			got := make([]string, len(info.Violations))
			for i, v := range info.Violations {
				got[i] = v.Parameter
			}
			if strings.Join(got, " ") != strings.Join(tc.want, " ") {
				t.Fatalf("violations in order\n got %v\nwant %v", got, tc.want)
			}
			if i, j := strings.Index(text(res), `"`+tc.want[2]+`"`), strings.Index(text(res), `"`+tc.want[len(tc.want)-1]+`"`); i < 0 || j < i {
				t.Fatalf("the text lists them out of order: %s", text(res))
			}
		})
	}
}
