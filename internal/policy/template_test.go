package policy_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpwrap/mcpwrap/internal/policy"
	"github.com/mcpwrap/mcpwrap/wrap/authz"
)

// TestTemplateKeyAuthorizesTheURIsItServes: a Resources key that is a URI
// template (as resources/templates/list names it) authorizes reading the
// URIs the template serves, and no others; its own text is how the list
// entry and a completion of it are named.
func TestTemplateKeyAuthorizesTheURIsItServes(t *testing.T) {
	e := policy.New(authz.Policy{
		Resources: map[string][]string{
			"db://{name}/tables":     {"db:read"},
			"db://{name}/secrets":    {"db:admin"},
			"files://{+path}":        {"files"},
			"db://*":                 {"db:admin"},
			"weather://{city}{?day}": {"w"},
			"broken://{name":         {"x"}, // not a template: an exact key
		},
		Public: []string{"docs://{page}"},
	})
	reader := authz.Caller{Scopes: []string{"db:read", "files", "w"}}
	for _, tc := range []struct {
		uri      string
		required []string
		declared bool
	}{
		{"db://{name}/tables", []string{"db:read"}, true}, // the template's entry in its list
		{"db://orders/tables", []string{"db:read"}, true},
		{"db://orders%2Fx/tables", []string{"db:read"}, true},
		{"db://orders/secrets", []string{"db:admin"}, true},
		{"db://a/b/tables", []string{"db:admin"}, true}, // {name} spans no "/": the prefix decides
		{"db://orders/tables/x", []string{"db:admin"}, true},
		{"files:///etc/passwd", []string{"files"}, true},
		{"weather://paris?day=mon", []string{"w"}, true},
		{"weather://paris", []string{"w"}, true},
		{"broken://{name", []string{"x"}, true},
		{"broken://x", nil, false},
		{"docs://intro", nil, true},
		{"docs://a/b", nil, false},
		{"other://orders/tables", nil, false},
	} {
		got, declared := e.Required(policy.ResourcesRead, tc.uri)
		if declared != tc.declared || !slices.Equal(got, tc.required) {
			t.Errorf("%s requires %v (declared %v), want %v (%v)", tc.uri, got, declared, tc.required, tc.declared)
		}
	}
	ctx := context.Background()
	if d := e.Decide(ctx, reader, authz.Request{Method: policy.ResourcesRead, Name: "db://orders/tables"}); d.Verdict != policy.Allowed {
		t.Errorf("a read the template serves: %v %s", d.Verdict, d.Reason)
	}
	if d := e.Decide(ctx, reader, authz.Request{Method: policy.ResourcesRead, Name: "db://orders/secrets"}); d.Verdict != policy.Hidden {
		t.Errorf("a read of a template needing another scope: %v", d.Verdict)
	}
}

// TestTemplatesCostBoundedTimeOnHostileURIs: a URI the client makes huge,
// or of many segments, costs each template key a bounded match: one past
// the bound matches no template at all.
func TestTemplatesCostBoundedTimeOnHostileURIs(t *testing.T) {
	keys := map[string][]string{}
	for _, k := range []string{"db://{a}/x", "db://{a}/{b}/{c}", "db://{+path}", "db://{a}{?q,r}", "db://{a}{/s*}"} {
		keys[k] = []string{"s"}
	}
	for i := range 50 {
		keys["db://{a}/t"+strings.Repeat("x", i)] = []string{"s"}
	}
	e := policy.New(authz.Policy{Resources: keys})
	for name, uri := range map[string]string{
		"huge":     "db://" + strings.Repeat("a", 4<<20),
		"segments": "db://" + strings.Repeat("a/", 2<<20),
		"escapes":  "db://" + strings.Repeat("%4", 1<<20),
	} {
		start := time.Now()
		for range 20 {
			if _, declared := e.Required(policy.ResourcesRead, uri); declared {
				t.Errorf("%s: a %d-byte URI matched a template", name, len(uri))
			}
		}
		if d := time.Since(start) / 20; d > 50*time.Millisecond {
			t.Errorf("%s: one decision took %v against %d templates", name, d, len(keys))
		}
	}
	long := "db://" + strings.Repeat("a/", 8<<10-3) + "x" // just under the bound
	start := time.Now()
	if _, declared := e.Required(policy.ResourcesRead, long); !declared {
		t.Errorf("a %d-byte URI that db://{+path} serves was not matched", len(long))
	}
	t.Logf("a %d-byte URI against %d templates: %v", len(long), len(keys), time.Since(start))
}
