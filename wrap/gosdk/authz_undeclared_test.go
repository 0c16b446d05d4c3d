package gosdk_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestUnknownNamesLeaveNoWarning: go-sdk hands the middleware every
// tools/call, names the server does not have included. A client calling
// made-up names gets go-sdk's unknown-tool answer and must not make the
// server warn that "no policy declares" them: each such warning is a log
// line and an entry the policy remembers for the life of the process, so
// a client could fill the log and the memory with names of its choosing.
// The one tool the server has and the policy forgot is warned of, by the
// first tools/list already.
func TestUnknownNamesLeaveNoWarning(t *testing.T) {
	as := newAuthzServer(t, goPolicy())
	url := as.serve(t, false)
	cs := connectAs(t, url, "reader", nil)
	_ = names(t, cs)
	if !strings.Contains(as.logs.String(), "no policy declares tools/call forgotten") {
		t.Errorf("no warning names the undeclared tool after tools/list: %s", as.logs.String())
	}
	for i := range 200 {
		name := fmt.Sprintf("made_up_%d", i)
		_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name})
		if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("unknown tool %q", name)) {
			t.Fatalf("calling %s: %v", name, err)
		}
	}
	if n := strings.Count(as.logs.String(), "no policy declares tools/call made_up_"); n != 0 {
		t.Fatalf("%d warnings name tools the server does not have", n)
	}
}
