package mcpgo_test

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
)

// answeredIDs returns the ids answered (with a result or an error) on stdout.
func answeredIDs(stdout []byte) map[string]bool {
	ids := map[string]bool{}
	for l := range bytes.SplitSeq(bytes.TrimSpace(stdout), []byte("\n")) {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if json.Unmarshal(l, &m) == nil && (m.Result != nil || m.Error != nil) {
			ids[string(m.ID)] = true
		}
	}
	return ids
}

// A client that wrote 8 requests and closed stdin at once got 1 to 8
// answers: on the end of stdin mcp-go cancels the requests in flight and
// its tool-call workers stop taking the queued ones. mcpgo.ServeStdio
// answers every request read before the end.
func TestStdioAnswersEveryRequestReadBeforeStdinCloses(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a child process")
	}
	// The bare runs only give the figure logged at the end: fewer of them.
	const runs, bareRuns = 20, 5
	requests := stdioInit + stdioCalls(7) // initialize and 7 tool calls: ids 1 … 8
	serve := func(t *testing.T, mode string) map[string]bool {
		cmd := stdioExit(mode)
		cmd.Stdin = strings.NewReader(requests)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("%v\n%s", err, stderr.Bytes())
		}
		return answeredIDs(stdout.Bytes())
	}
	for run := range runs {
		got := serve(t, "wrapped")
		for id := 1; id <= 8; id++ {
			if k := strconv.Itoa(id); !got[k] {
				t.Fatalf("run %d: request %s unanswered; answered %d of 8: %v", run, k, len(got), got)
			}
		}
	}
	bare := 0
	for range bareRuns {
		bare += len(serve(t, "bare"))
	}
	t.Logf("server.ServeStdio answered %d of %d requests over %d runs; mcpgo.ServeStdio all %d over %d", bare, 8*bareRuns, bareRuns, 8*runs, runs)
}
