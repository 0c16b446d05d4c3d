package audit_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/mcpwrap/mcpwrap/cmd/mcpwrap/internal/audit"
)

// Main audits a stdio server given after "--" (here the test fixture with
// mcpwrap's 3-line retrofit) and returns the exit status; --json gives the
// report to a program. Every probe passes, but the fixture's delete_record
// is not annotated read-only, so the default scope did not call it: the
// verdict is INCOMPLETE and the exit status 3 (--all-tools would call it,
// --allow-partial accepts the gap).
func ExampleMain() {
	var out bytes.Buffer
	code := audit.Main([]string{"--json", "--", bin["mcpgoserver"], "-wrap"}, &out, io.Discard)
	var r struct {
		Score    float64 `json:"score"`
		Failed   int     `json:"failed"`
		Verdict  string  `json:"verdict"`
		Coverage struct {
			ToolsListed int `json:"toolsListed"`
			ToolsProbed int `json:"toolsProbed"`
		} `json:"coverage"`
	}
	_ = json.Unmarshal(out.Bytes(), &r)
	fmt.Println(code, r.Score, r.Failed, r.Verdict, r.Coverage.ToolsProbed, "of", r.Coverage.ToolsListed)
	// Output: 3 100 0 INCOMPLETE 3 of 4
}
