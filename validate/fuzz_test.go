package validate_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/internal/errmap"
	"github.com/mcpwrap/mcpwrap/validate"
)

// FuzzBind feeds arbitrary argument JSON into binding, both as JSON text
// and the way mcp-go hands it over (a tools/call params object decoded
// into a CallToolRequest): binding never panics and always returns either
// a value or an invalid-argument error whose result stays under
// errmap.MaxResultBytes, also when the input is repeated thousands of times
// as list items or as one long key.
func FuzzBind(f *testing.F) {
	for _, s := range []string{
		`{"city":"Paris","days":3}`, `{"cty":"x","days":"three"}`, `null`, `[]`, `"x"`, `1e400`, ``,
		`{"city":"P","filters":[{"since":"x"},{}],"labels":{"a":-1},"address":{"zip":1}}`,
		`{"city":"P","big":18446744073709551616,"small":-129,"count_u":1.5}`,
		`{"city":"P","at":"2999-01-01T00:00:00Z","tags":[null,"a"],"token":{"x":[1,2]}}`,
	} {
		f.Add([]byte(s))
	}
	b := validate.MustNew[kitchen]()
	check := func(t *testing.T, err error) {
		if err == nil {
			return
		}
		var e *errs.Error
		if !errors.As(err, &e) || e.Code() != errs.InvalidArgument || len(e.Violations()) == 0 || e.Message() == "" {
			t.Fatalf("not an invalid-argument error with violations: %#v", err)
		}
		if n := len(e.Violations()); n > errmap.MaxViolations {
			t.Fatalf("%d violations collected", n)
		}
		raw, jerr := json.Marshal(errmap.ToResult(err, errmap.Call{Tool: "t", ID: "c"}))
		if jerr != nil || len(raw) > errmap.MaxResultBytes {
			t.Fatalf("result of %d bytes (%v)", len(raw), jerr)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		_, err := b.BindJSON(data)
		check(t, err)
		if len(data) > 0 && len(data) < 256 {
			items := bytes.Repeat(append(data, ','), 3000)
			_, err = b.BindJSON(append(append([]byte(`{"city":"P","tags":[`), items[:len(items)-1]...), ']', '}'))
			check(t, err)
			_, err = b.BindJSON(append(append([]byte(`{"city":"P","filters":[`), items[:len(items)-1]...), ']', '}'))
			check(t, err)
			key, _ := json.Marshal(string(bytes.Repeat(data, 1+(64<<10)/len(data))))
			_, err = b.BindJSON(append(append([]byte(`{"city":"P",`), key...), []byte(`:1}`)...))
			check(t, err)
		}
		var req mcp.CallToolRequest
		if json.Unmarshal(append(append([]byte(`{"name":"t","arguments":`), data...), '}'), &req.Params) == nil {
			_, err = b.Bind(toCall(req))
			check(t, err)
		}
	})
}
