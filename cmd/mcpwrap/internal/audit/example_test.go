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
// report to a program.
func ExampleMain() {
	var out bytes.Buffer
	code := audit.Main([]string{"--json", "--", bin["mcpgoserver"], "-wrap"}, &out, io.Discard)
	var r struct {
		Score  float64 `json:"score"`
		Failed int     `json:"failed"`
		OK     bool    `json:"ok"`
	}
	_ = json.Unmarshal(out.Bytes(), &r)
	fmt.Println(code, r.Score, r.Failed, r.OK)
	// Output: 0 100 0 true
}
