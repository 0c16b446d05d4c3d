package adaptercases

import (
	"fmt"
	"strings"
	"testing"
)

// SchemaBreakCode is the output type of the tool "code" whose handler
// returns {"code":"too long"}, breaking its own rule max=3.
type SchemaBreakCode struct {
	Code string `json:"code" validate:"max=3"`
}

// CheckSchemaBreak: the call of "code" is the server's fault, not the
// model's: an error result saying internal error without the value (text),
// one log line (lines) with code internal whose cause names the broken rule.
func CheckSchemaBreak(t *testing.T, isError bool, text string, lines []map[string]any) {
	t.Helper()
	if !isError || !strings.Contains(text, "internal error") || strings.Contains(text, "too long") {
		t.Fatalf("isError %v, text %q", isError, text)
	}
	if len(lines) != 1 || lines[0]["code"] != "internal" ||
		!strings.Contains(fmt.Sprint(lines[0]["cause"]), `breaks its own schema: parameter "code" must be at most 3`) {
		t.Fatalf("log lines %v", lines)
	}
}
