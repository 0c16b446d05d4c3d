package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpwrap/mcpwrap/wrap/outbound/outboundtest"
)

// probeCases: every kitchen scenario, the outcome the probe must report for
// a call of echo, and its exit status.
var probeCases = []struct {
	scenario string
	outcome  string
	exit     int
	extra    []string
}{
	{"baseline", "TOOL_SUCCESS", 0, nil},
	{"http_status_sequence?statuses=200,200,503", "HTTP_ERROR", 5, nil},
	{"http_status_sequence?statuses=503,200", "TOOL_SUCCESS", 0, nil}, // the 503 is spent on server/discover
	{"jsonrpc_error", "JSONRPC_ERROR", 3, nil},
	{"tool_error", "TOOL_ERROR", 1, nil},
	{"tool_error?stray=true", "TOOL_ERROR", 1, nil}, // a response to another id comes first on the stream
	{"malformed_payload", "MALFORMED_JSON", 4, nil},
	{"malformed_payload?variant=html", "MALFORMED_JSON", 4, nil},
	{"non_compliant_envelope", "INVALID_ENVELOPE", 4, nil},
	{"non_compliant_envelope?variant=content_string", "INVALID_TOOL_RESULT", 4, nil},
	{"connection_close", "NETWORK_ERROR", 5, nil},
	{"sse_truncated", "INCOMPLETE_STREAM", 5, nil},
	{"uncooperative_hang", "NETWORK_ERROR", 5, []string{"-timeout", "400ms"}},
	{"late_response?delay=50ms", "TOOL_SUCCESS", 0, nil},
	{"auth_token?until=2", "HTTP_ERROR", 5, nil},
	{"input_required", "INPUT_REQUIRED", 2, nil},
	{"sse", "TOOL_SUCCESS", 0, nil},
}

// TestProbeAgainstKitchen runs the probe (in-process) against a real kitchen
// on loopback, one kitchen session per scenario, and reads its -json output.
func TestProbeAgainstKitchen(t *testing.T) {
	k := outboundtest.NewServer("")
	defer k.Close()
	for i, tc := range probeCases {
		t.Run(tc.scenario, func(t *testing.T) {
			args := append([]string{"-url", k.URL, "-json", "-tool", "echo", "-args", `{"text":"hi"}`,
				"-header", fmt.Sprintf("%s=p%d", outboundtest.HeaderSession, i), "-header", outboundtest.HeaderScenario + "=" + tc.scenario}, tc.extra...)
			var out, errOut bytes.Buffer
			code := run(t.Context(), args, &out, &errOut)
			var rep reportJSON
			if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
				t.Fatalf("output is not JSON: %v\n%s%s", err, out.String(), errOut.String())
			}
			if code != tc.exit || rep.Exit != code || len(rep.Calls) != 1 || string(rep.Calls[0].Outcome) != tc.outcome {
				t.Fatalf("exit %d, report %+v; want %s, exit %d", code, rep, tc.outcome, tc.exit)
			}
			if rep.Worst != tc.outcome {
				t.Errorf("worst %q, want %q", rep.Worst, tc.outcome)
			}
			if stray := strings.Contains(tc.scenario, "stray=true"); stray != (rep.Calls[0].StrayResponses == 1) {
				t.Errorf("strayResponses %d for %s", rep.Calls[0].StrayResponses, tc.scenario)
			}
		})
	}
}

// TestProbeText checks the human output: three layers and the outcome.
func TestProbeText(t *testing.T) {
	k := outboundtest.NewServer("")
	defer k.Close()
	var out bytes.Buffer
	code := run(t.Context(), []string{"-url", k.URL, "-header", "Kitchen-Session=t", "-header", "Kitchen-Scenario=jsonrpc_error?call=2"}, &out, &out)
	got := out.String()
	for _, want := range []string{
		"2 tools: add, echo",
		"tools/call add {}",
		"  application  resultType complete, isError false: \"0\"",
		"  outcome      TOOL_SUCCESS (application layer)",
		"  protocol     JSON-RPC error -32602",
		"  application  not reached",
		"  outcome      JSONRPC_ERROR (protocol layer)",
		"worst outcome JSONRPC_ERROR, exit 3",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	if code != 3 || t.Failed() {
		t.Fatalf("exit %d\n%s", code, got)
	}
}

// TestPlainProbeAgainstAStatusSequenceKitchen: a kitchen whose default is
// http_status_sequence?statuses=503,200 and a probe with no headers. The 503
// hit server/discover, then again the first POST of the MCP session that
// initialize created, so setup failed every time. Now each plain probe sees
// the 503 on its first POST only and ends in TOOL_SUCCESS.
func TestPlainProbeAgainstAStatusSequenceKitchen(t *testing.T) {
	k := outboundtest.NewServer("http_status_sequence?statuses=503,200")
	defer k.Close()
	for n := range 2 {
		var out, errOut bytes.Buffer
		code := run(t.Context(), []string{"-url", k.URL, "-json", "-tool", "echo"}, &out, &errOut)
		var rep reportJSON
		if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
			t.Fatalf("output is not JSON: %v\n%s%s", err, out.String(), errOut.String())
		}
		if code != 0 || rep.SetupError != "" || len(rep.Setup) < 2 || rep.Setup[0] != (postJSON{"server/discover", 503}) {
			t.Fatalf("probe %d: exit %d, setup %+v %q; want exit 0 after server/discover→503", n+1, code, rep.Setup, rep.SetupError)
		}
		if len(rep.Calls) != 1 || rep.Calls[0].JSONRPC.ID == nil {
			t.Errorf("probe %d: calls %+v, want one with its JSON-RPC id", n+1, rep.Calls)
		}
	}
}

func TestProbeUsage(t *testing.T) {
	var out bytes.Buffer
	for _, args := range [][]string{{}, {"-url", "http://127.0.0.1:1/mcp", "--", "cmd"}, {"-url", "http://x", "-args", "[1]"}} {
		if code := run(t.Context(), args, &out, &out); code != exitUsage {
			t.Errorf("run(%q) = %d, want %d", args, code, exitUsage)
		}
	}
}

// TestRealProcesses builds the kitchen and the probe, runs them as
// processes, and checks the probe's exit statuses over HTTP and stdio.
func TestRealProcesses(t *testing.T) {
	dir := t.TempDir()
	kbin, pbin := filepath.Join(dir, "kitchen"), filepath.Join(dir, "probe")
	for bin, pkg := range map[string]string{kbin: "../kitchen", pbin: "."} {
		if out, err := exec.Command("go", "build", "-o", bin, pkg).CombinedOutput(); err != nil {
			t.Fatalf("go build %s: %v\n%s", pkg, err, out)
		}
	}
	kc := exec.Command(kbin, "-addr", "127.0.0.1:0", "-scenario", "tool_error")
	stdout, err := kc.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := kc.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = kc.Process.Kill(); _ = kc.Wait() }()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	fields := strings.Fields(line) // kitchen: serving URL (scenario …
	if len(fields) < 3 || !strings.HasPrefix(fields[2], "http://127.0.0.1:") {
		t.Fatalf("unexpected first line %q", line)
	}
	url := fields[2]
	control := strings.TrimSuffix(url, "/mcp") + outboundtest.ControlPath

	probe := func(args ...string) (int, string) {
		var out bytes.Buffer
		cmd := exec.Command(pbin, args...)
		cmd.Stdout, cmd.Stderr = &out, &out
		err := cmd.Run()
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode(), out.String()
		}
		if err != nil {
			t.Fatal(err)
		}
		return 0, out.String()
	}
	checks := []struct {
		name   string
		args   []string
		exit   int
		want   string
		absent string
	}{
		{"server default from the flag", []string{"-url", url, "-tool", "echo"}, 1, "TOOL_ERROR (application layer)", ""},
		{"per-session header", []string{"-url", url, "-tool", "echo", "-header", "Kitchen-Session=h", "-header", "Kitchen-Scenario=sse_truncated"}, 5, "INCOMPLETE_STREAM", ""},
		{"stdio", []string{"--", kbin, "-stdio"}, 0, "worst outcome TOOL_SUCCESS, exit 0", ""},
		// Over stdio the id is not visible; it printed "jsonrpc":{"id":null}.
		{"stdio JSON has no null id", []string{"-json", "-tool", "echo", "--", kbin, "-stdio"}, 0, `"outcome": "TOOL_SUCCESS"`, `"id": null`},
	}
	for _, c := range checks {
		code, out := probe(c.args...)
		if code != c.exit || !strings.Contains(out, c.want) || (c.absent != "" && strings.Contains(out, c.absent)) {
			t.Errorf("%s: exit %d, want %d with %q and without %q\n%s", c.name, code, c.exit, c.want, c.absent, out)
		}
	}
	// The control endpoint switches the server-wide session.
	resp, err := http.Post(control+"?scenario=jsonrpc_error", "text/plain", nil)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("control: %v %v", resp, err)
	}
	resp.Body.Close()
	if code, out := probe("-url", url, "-tool", "echo", "-json"); code != 3 || !strings.Contains(out, `"outcome": "JSONRPC_ERROR"`) {
		t.Errorf("after the control switch: exit %d\n%s", code, out)
	}
}
