package validate_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/validate"
)

// agreement checks, for one struct, that the schema advertised in
// tools/list and the binder agree on every input: valid by the schema
// means bound, invalid by the schema means an invalid-argument error, and
// the parameters our violations name are the ones the schema flags.
func agreement[T any](t *testing.T, inputs []string) {
	t.Helper()
	b := validate.MustNew[T]()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b.Schema()))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource("mem:///schema.json", doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("mem:///schema.json")
	if err != nil {
		t.Fatalf("derived schema does not compile: %v\n%s", err, b.Schema())
	}
	for _, in := range inputs {
		t.Run(in, func(t *testing.T) {
			v, err := jsonschema.UnmarshalJSON(strings.NewReader(in))
			if err != nil {
				t.Fatal(err)
			}
			schemaErr := sch.Validate(v)
			_, bindErr := b.Bind([]byte(in))
			if (schemaErr == nil) != (bindErr == nil) {
				t.Fatalf("disagree: schema says %v, binder says %v", schemaErr, bindErr)
			}
			if bindErr == nil {
				return
			}
			var e *errs.Error
			if !errors.As(bindErr, &e) || e.Code() != errs.InvalidArgument {
				t.Fatalf("binder error is not invalid_argument: %v", bindErr)
			}
			var ve *jsonschema.ValidationError
			if !errors.As(schemaErr, &ve) {
				t.Fatal(schemaErr)
			}
			flagged := map[string]bool{}
			collect(ve, flagged)
			for _, viol := range e.Violations() {
				top, _, _ := strings.Cut(viol.Parameter, ".")
				top, _, _ = strings.Cut(top, "[")
				key := ""
				if i := strings.LastIndex(viol.Parameter, "["); i >= 0 {
					key = viol.Parameter[i:]
				}
				if !flagged[top] && !flagged[key] {
					t.Errorf("we flag %q (%s) but the schema does not: %v", viol.Parameter, viol.Rule, schemaErr)
				}
			}
		})
	}
}

// collect records the top-level property each leaf schema error is about
// ("" for the root; for additionalProperties, the unknown names).
func collect(ve *jsonschema.ValidationError, out map[string]bool) {
	if len(ve.InstanceLocation) > 0 {
		out[ve.InstanceLocation[0]] = true
	}
	if pn, ok := ve.ErrorKind.(*kind.PropertyNames); ok {
		// The library reports a bad map key without the map's location.
		out["["+pn.Property+"]"] = true
	}
	if len(ve.Causes) == 0 {
		if len(ve.InstanceLocation) > 0 {
			return
		}
		raw, _ := json.Marshal(ve.ErrorKind)
		var kinds struct {
			Missing    []string
			Properties []string
		}
		_ = json.Unmarshal(raw, &kinds)
		for _, n := range slices.Concat(kinds.Missing, kinds.Properties) {
			out[n] = true
		}
		out[""] = true
		return
	}
	for _, c := range ve.Causes {
		collect(c, out)
	}
}

func TestSchemaAndBindingAgree(t *testing.T) {
	t.Run("forecast", func(t *testing.T) {
		agreement[forecastArgs](t, []string{
			`{"city":"Paris"}`, `{"city":"Paris","days":1}`, `{"city":"Paris","days":14}`,
			`{"city":"Paris","days":0}`, `{"city":"Paris","days":15}`, `{"city":"Paris","days":-1}`,
			`{"city":"Paris","days":2.5}`, `{"city":"Paris","days":"3"}`, `{"days":3}`, `{}`,
			`{"city":"Paris","units":"metric"}`, `{"city":"Paris","units":"kelvin"}`, `{"city":"Paris","units":""}`,
			`{"city":"Paris","api_key":"12345678"}`, `{"city":"Paris","api_key":"1234"}`,
			`{"city":"Paris","cty":"x"}`, `{"city":null}`, `{"city":1}`, `[1]`, `"x"`, `null`,
		})
	})
	t.Run("kitchen", func(t *testing.T) {
		agreement[kitchen](t, []string{
			`{"city":"P"}`,
			`{"city":"P","name":"abc"}`, `{"city":"P","name":"ab"}`, `{"city":"P","name":"abcdefghijk"}`, `{"city":"P","name":""}`,
			`{"city":"P","code":"abcd"}`, `{"city":"P","code":"abc"}`,
			`{"city":"P","count":1}`, `{"city":"P","count":99}`, `{"city":"P","count":100}`, `{"city":"P","count":-1}`,
			`{"city":"P","ratio":0.5}`, `{"city":"P","ratio":2}`, `{"city":"P","ratio":0.4}`, `{"city":"P","ratio":2.1}`,
			`{"city":"P","tags":["aa","bb","cc"]}`, `{"city":"P","tags":["aa","bb","cc","dd"]}`, `{"city":"P","tags":["a"]}`, `{"city":"P","tags":[]}`, `{"city":"P","tags":[1]}`,
			`{"city":"P","unit":"metric"}`, `{"city":"P","unit":"kelvin"}`,
			`{"city":"P","email":"a@example.com"}`, `{"city":"P","email":"nobody"}`,
			`{"city":"P","url":"https://example.com/x"}`, `{"city":"P","url":"example.com"}`,
			`{"city":"P","id":"123e4567-e89b-12d3-a456-426614174000"}`, `{"city":"P","id":"123"}`,
			`{"city":"P","host":"api.example.com"}`, `{"city":"P","host":"-bad-"}`,
			`{"city":"P","ip":"192.0.2.1"}`, `{"city":"P","ip":"2001:db8::1"}`, `{"city":"P","ip":"1.2.3"}`,
			`{"city":"P","when":"2026-01-02"}`, `{"city":"P","when":"2026-13-01"}`,
			`{"city":"P","slug":"abc123"}`, `{"city":"P","slug":"a-b"}`,
			`{"city":"P","prefix":"abc"}`, `{"city":"P","prefix":"xab"}`,
			`{"city":"P","suffix":"xyz"}`, `{"city":"P","suffix":"yzx"}`,
			`{"city":"P","has":"a@b"}`, `{"city":"P","has":"nope"}`,
			`{"city":"P","no_slash":"ab"}`, `{"city":"P","no_slash":"a/b"}`,
			`{"city":"P","labels":{"ab":5}}`, `{"city":"P","labels":{"a":1}}`, `{"city":"P","labels":{"ab":6}}`, `{"city":"P","labels":{"ab":"x"}}`,
			`{"city":"P","address":{"street":"x","zip":"12345"}}`, `{"city":"P","address":{"street":"x","zip":"1234"}}`,
			`{"city":"P","address":{"zip":"12345"}}`, `{"city":"P","address":null}`, `{"city":"P","address":{"street":"x","zip":"12345","z":1}}`,
			`{"city":"P","filters":[{"field":"a","since":"2026-01-02T15:04:05Z"}]}`, `{"city":"P","filters":[{"field":"a","since":"yesterday"}]}`,
			`{"city":"P","filters":[{}]}`, `{"city":"P","filters":null}`,
			`{"city":"P","small":127}`, `{"city":"P","small":128}`, `{"city":"P","count_u":0}`, `{"city":"P","count_u":-1}`,
			`{"city":"P","big":9007199254740993}`, `{"city":"P","big":1.5}`,
		})
	})
}
