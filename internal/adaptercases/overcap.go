package adaptercases

import (
	"strings"
	"testing"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/wrap"
)

// CreatedQueue is what the over-cap tools answer: a created queue, its
// structured content, echoing back what it was sent.
type CreatedQueue struct {
	Name string `json:"name"`
	ID   string `json:"id"`
	Echo string `json:"echo"`
}

// OverCapQueue is the over-cap tools' answer: 2 MiB of text, and the
// created queue echoing it, so that text and structured content are 4 MiB,
// four times the default cap.
func OverCapQueue() (text string, q CreatedQueue) {
	big := strings.Repeat("queue q-17 created; ", (2<<20)/20)
	return big, CreatedQueue{Name: "orders", ID: "q-17", Echo: big}
}

// OverCapAnswer is what a client got from a tool of
// TestOverCapSuccessIsNotReportedAsAFailure.
type OverCapAnswer struct {
	IsError, Structured bool      // isError, and whether structuredContent was sent
	Texts               []string  // the text contents
	Info                errs.Info // structuredContent.error, when HasInfo
	HasInfo             bool
}

// OverCapCase is a tool with an output schema whose successful answer is
// over the cap: its error result says the call succeeded, with the
// sideEffects Side, and its message says each of Says and none of SaysNo.
// It is called Calls times (past the loop guard's 3 failures, for a write).
type OverCapCase struct {
	Tool, Side   string
	Calls        int
	Says, SaysNo []string
}

// CheckOverCap calls, with call, the server's tools whose handlers answer
// 2 MiB of text plus structured content; lines are the call log lines of
// a tool. "create_queue", without an output schema, stays a success, cut,
// saying so; each case's tool gets an error result that says the call
// succeeded (result_too_large, not retryable), logged at WARN each time.
func CheckOverCap(t *testing.T, call func(t *testing.T, tool string) OverCapAnswer, lines func(tool string) []map[string]any, cases []OverCapCase) {
	t.Helper()
	t.Run("no output schema: a success, cut", func(t *testing.T) { checkCut(t, call(t, "create_queue"), lines("create_queue")) })
	for _, c := range cases {
		t.Run("output schema: "+c.Tool, func(t *testing.T) {
			for i := range c.Calls {
				c.check(t, i, call(t, c.Tool))
			}
			if l := lines(c.Tool); len(l) != c.Calls || l[0]["outcome"] != "result_too_large" || l[0]["level"] != "WARN" || l[0]["result_cut_from_bytes"] == nil {
				t.Fatalf("log lines %v", l)
			}
		})
	}
}

// checkCut: a success without an output schema is cut to the cap, its
// structured content left out, and says so.
func checkCut(t *testing.T, a OverCapAnswer, l []map[string]any) {
	t.Helper()
	size, last := 0, ""
	for _, text := range a.Texts {
		size += len(text)
		last = text
	}
	if a.IsError || a.Structured || size > wrap.DefaultResultLimit ||
		!strings.Contains(last, "the result was cut from 4 MiB to 1 MiB") || !strings.Contains(last, "its structured content was left out") {
		t.Fatalf("isError %v, structured %v, %d bytes, note %q", a.IsError, a.Structured, size, last)
	}
	if len(l) != 1 || l[0]["outcome"] != "success" || l[0]["result_cut_from_bytes"] == nil {
		t.Fatalf("log line %v", l)
	}
}

// check is the answer to call i of c's tool.
func (c OverCapCase) check(t *testing.T, i int, a OverCapAnswer) {
	t.Helper()
	info := a.Info
	if !a.IsError || !a.HasInfo || info.Code != "result_too_large" || info.Retryable || info.SideEffects != c.Side {
		t.Fatalf("call %d: isError %v, info %+v", i, a.IsError, info)
	}
	for _, w := range c.Says {
		if !strings.Contains(info.Message, w) {
			t.Fatalf("%q does not say %q", info.Message, w)
		}
	}
	for _, w := range c.SaysNo {
		if strings.Contains(info.Message, w) {
			t.Fatalf("%q says %q", info.Message, w)
		}
	}
}
