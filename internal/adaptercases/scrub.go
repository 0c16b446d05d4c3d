package adaptercases

import (
	"strings"
	"testing"

	"github.com/mcpwrap/mcpwrap/internal/errcases"
	"github.com/mcpwrap/mcpwrap/internal/logbuf"
)

// CheckStructuredScrubbed checks the answer to a tool that returned c's
// isError result (c.Text and c.Structured()), as a client got it: isError,
// its texts and its structuredContent as JSON. Nothing c plants reached the
// client, what c keeps is still there, and the last text gives the call id
// of the call's line in logs, after the handler's text.
func CheckStructuredScrubbed(t *testing.T, c errcases.StructuredCase, logs *logbuf.Buffer, isError bool, texts []string, structured []byte) {
	t.Helper()
	if l := c.Leaked(append(texts, string(structured))...); l != "" {
		t.Fatalf("%q reached the client: %q %s", l, texts, structured)
	}
	for _, k := range c.Keeps {
		if !strings.Contains(string(structured), k) {
			t.Fatalf("structuredContent %s lost %q", structured, k)
		}
	}
	lines, _ := logs.Find("tool", c.Name)
	if len(lines) == 0 {
		t.Fatalf("no log line for %s", c.Name)
	}
	id, _ := lines[len(lines)-1]["call_id"].(string)
	if !isError || len(texts) != 2 || id == "" || texts[1] != "(call id "+id+")" {
		t.Fatalf("isError %v, texts %q, want the handler's text then the call id %q", isError, texts, id)
	}
}

// CheckLogScrubbed fails if logs holds anything the cases plant.
func CheckLogScrubbed(t *testing.T, cases []errcases.StructuredCase, logs *logbuf.Buffer) {
	t.Helper()
	for _, c := range cases {
		if l := c.Leaked(logs.String()); l != "" {
			t.Fatalf("%q in the log", l)
		}
	}
}

// CheckHostsHidden checks the answers to tools whose handlers returned the
// plain errors errcases.HostTexts: read(i) is whether the answer to the
// call of HostTexts[i] is an error result, and the text the model reads.
// The model reads [host] for every host name, none of the names; the log
// keeps the name for the operator.
func CheckHostsHidden(t *testing.T, read func(i int) (isError bool, text string), logs *logbuf.Buffer) {
	t.Helper()
	for i, c := range errcases.HostTexts {
		isError, text := read(i)
		if !isError || !strings.Contains(text, "[host]") {
			t.Errorf("the model reads %q (isError %v)", text, isError)
		}
		for _, h := range c.Hosts {
			if strings.Contains(text, h) {
				t.Errorf("the model reads %q in %q", h, text)
			}
		}
	}
	if !strings.Contains(logs.String(), "git-03.internal") {
		t.Fatalf("the operator lost the host name: %s", logs.String())
	}
}
