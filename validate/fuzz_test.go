package validate_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/validate"
)

// FuzzBind feeds arbitrary argument JSON into binding, both as JSON text
// and the way mcp-go hands it over (a tools/call params object decoded
// into a CallToolRequest): binding never panics and always returns either
// a value or an invalid-argument error.
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
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		_, err := b.BindJSON(data)
		check(t, err)
		var req mcp.CallToolRequest
		if json.Unmarshal(append(append([]byte(`{"name":"t","arguments":`), data...), '}'), &req.Params) == nil {
			_, err = b.Bind(req)
			check(t, err)
		}
	})
}
