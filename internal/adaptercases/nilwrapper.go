package adaptercases

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpwrap/mcpwrap/errs"
)

// NilLeak is the error of TestNilWrapperPanicked's failing tool, holding
// a password: the chain masks it.
const NilLeak = "dial postgres://admin:hunter2@db.internal:5432/notes: connection refused"

// CheckMaskedInternal checks the answer res, a tool result of either SDK
// whose InfoOf gave info and ok, to a call of a tool that returned
// NilLeak: the chain answered it, with its internal-error result, and the
// password is nowhere in what was sent.
func CheckMaskedInternal(t *testing.T, res any, info errs.Info, ok bool) {
	t.Helper()
	if !ok || info.Code != errs.Internal.String() {
		t.Fatalf("result %+v: info %+v, %v; want the chain's internal error", res, info, ok)
	}
	if sent, _ := json.Marshal(res); strings.Contains(string(sent), "hunter2") {
		t.Errorf("the result shows the password: %s", sent)
	}
}
