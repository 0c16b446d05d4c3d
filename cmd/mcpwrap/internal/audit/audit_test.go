package audit_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpwrap/mcpwrap/cmd/mcpwrap/internal/audit"
	"github.com/mcpwrap/mcpwrap/wrap/outbound/outboundtest"
)

// bin holds the fixture servers, built once.
var bin = map[string]string{}

// TestMain builds both fixture servers with one go build, which compiles
// what they share once and both at a time. They are built without -race:
// they are not what is under test, and a race-built server answered a
// 1 MiB argument past the audit's 5 s limit on a loaded machine.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "mcpwrap-audit-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	const pkg = "github.com/mcpwrap/mcpwrap/cmd/mcpwrap/internal/audit/internal/"
	names := []string{"mcpgoserver", "gosdkserver"}
	args := []string{"build", "-o", dir + string(filepath.Separator)}
	for _, name := range names {
		args = append(args, pkg+name)
		bin[name] = filepath.Join(dir, name)
	}
	cmd := exec.Command("go", args...)
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build", names, err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// report is the part of the JSON report the tests read.
type report struct {
	Server struct {
		Name string `json:"name"`
	} `json:"server"`
	Budget struct {
		UsedTools   int     `json:"usedTools"`
		UsedCalls   int     `json:"usedCalls"`
		UsedSeconds float64 `json:"usedSeconds"`
		Exhausted   string  `json:"exhausted"`
	} `json:"budget"`
	Tools []struct {
		Name    string         `json:"name"`
		Audited bool           `json:"audited"`
		Skipped string         `json:"skipped"`
		Results []audit.Result `json:"results"`
	} `json:"tools"`
	ResourceReads []struct {
		Name    string         `json:"name"`
		Audited bool           `json:"audited"`
		Results []audit.Result `json:"results"`
	} `json:"resourceReads"`
	PromptGets []struct {
		Name    string         `json:"name"`
		Audited bool           `json:"audited"`
		Results []audit.Result `json:"results"`
	} `json:"promptGets"`
	ServerChecks []audit.Result `json:"serverChecks"`
	Restarts     []string       `json:"restarts"`
	Coverage     struct {
		ToolsListed, ToolsProbed int
		Complete                 bool
	} `json:"coverage"`
	Verdict string  `json:"verdict"`
	Failed  int     `json:"failed"`
	Passed  int     `json:"passed"`
	Score   float64 `json:"score"`
	OK      bool    `json:"ok"`
}

func (r report) result(t *testing.T, tool, probe, check string) audit.Result {
	t.Helper()
	for _, res := range r.all() {
		if (res.Tool == tool || res.Item == tool) && res.Probe == probe && res.Check == check {
			return res
		}
	}
	t.Fatalf("no result for %s %s %s", tool, probe, check)
	return audit.Result{}
}

func (r report) all() []audit.Result {
	all := append([]audit.Result(nil), r.ServerChecks...)
	for _, tr := range r.Tools {
		all = append(all, tr.Results...)
	}
	for _, it := range r.ResourceReads {
		all = append(all, it.Results...)
	}
	for _, it := range r.PromptGets {
		all = append(all, it.Results...)
	}
	return all
}

func (r report) failures() []string {
	var out []string
	for _, res := range r.all() {
		if res.Status == audit.Fail {
			out = append(out, res.Tool+" "+res.Probe+" "+res.Check+": "+res.Detail)
		}
	}
	return out
}

func runAudit(t *testing.T, args ...string) (report, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := audit.Main(append([]string{"--json"}, args...), &out, &errb)
	var r report
	if code != audit.ExitUsage {
		if err := json.Unmarshal(out.Bytes(), &r); err != nil {
			t.Fatalf("report: %v\n%s\nstderr: %s", err, out.String(), errb.String())
		}
	} else {
		t.Logf("stderr: %s", errb.String())
	}
	return r, code
}

// serveHTTP starts a fixture with -http and returns its URL.
func serveHTTP(t *testing.T, name string, args ...string) (string, *exec.Cmd) {
	t.Helper()
	cmd := exec.Command(bin[name], append([]string{"-http"}, args...)...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(line), cmd
}

func wantStatus(t *testing.T, r report, tool, probe, check string, st audit.Status, detail string) {
	t.Helper()
	res := r.result(t, tool, probe, check)
	if res.Status != st || !strings.Contains(res.Detail, detail) {
		t.Errorf("%s %s %s = %s %q, want %s containing %q", tool, probe, check, res.Status, res.Detail, st, detail)
	}
}

func TestBareMCPGoFailsWhatItIsKnownToFail(t *testing.T) {
	for _, tc := range []struct {
		name string
		args func(t *testing.T) []string
	}{
		{"stdio", func(*testing.T) []string { return []string{"--", bin["mcpgoserver"]} }},
		{"http", func(t *testing.T) []string { u, _ := serveHTTP(t, "mcpgoserver"); return []string{u} }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, code := runAudit(t, tc.args(t)...)
			if code != audit.ExitFailed || r.OK {
				t.Fatalf("exit %d ok=%v, want %d", code, r.OK, audit.ExitFailed)
			}
			// A handler's Go error is a -32603, not a tool error.
			wantStatus(t, r, "weather", "missing_required", "tool_error", audit.Fail, "-32603")
			// The message still names the parameter: only the envelope is wrong.
			wantStatus(t, r, "weather", "missing_required", "names_param", audit.Pass, "")
			// The backend error echoes the planted secret and an internal address.
			wantStatus(t, r, "lookup", "unknown_param", "no_leak", audit.Fail, "secret-shaped value the audit sent")
			wantStatus(t, r, "lookup", "wrong_type", "tool_error", audit.Fail, "-32603")
			// Echoing 1 MiB back is no bounded error.
			wantStatus(t, r, "lookup", "huge_string", "size", audit.Fail, "1.0 MiB")
			// Not read-only: never called.
			for _, tr := range r.Tools {
				if tr.Name == "delete_record" && (tr.Audited || !strings.HasPrefix(tr.Skipped, "not annotated readOnlyHint")) {
					t.Errorf("delete_record audited=%v skipped=%q", tr.Audited, tr.Skipped)
				}
			}
			if tc.name == "http" {
				// mcp-go's streamable HTTP has no recover: the panic drops the connection.
				wantStatus(t, r, "count", "unknown_param", "tool_error", audit.Fail, "closed the connection")
				wantStatus(t, r, "count", "unknown_param", "alive", audit.Pass, "")
			} else {
				// mcp-go's stdio recovers: -32603 "internal panic".
				wantStatus(t, r, "count", "unknown_param", "tool_error", audit.Fail, "internal panic")
				wantStatus(t, r, "", "session", "stdout", audit.Pass, "")
			}
		})
	}
}

func TestWrappedMCPGoPasses(t *testing.T) {
	for _, tc := range []struct {
		name string
		args func(t *testing.T) []string
	}{
		{"stdio", func(*testing.T) []string { return []string{"--allow-partial", "--", bin["mcpgoserver"], "-wrap"} }},
		{"http", func(t *testing.T) []string {
			u, _ := serveHTTP(t, "mcpgoserver", "-wrap")
			return []string{"--allow-partial", u}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, code := runAudit(t, tc.args(t)...)
			if code != audit.ExitOK || r.Failed != 0 || r.Score != 100 {
				t.Fatalf("exit %d, score %.1f, failures:\n%s", code, r.Score, strings.Join(r.failures(), "\n"))
			}
			if r.Budget.UsedTools != 3 {
				t.Errorf("audited %d tools, want the 3 read-only ones", r.Budget.UsedTools)
			}
			wantStatus(t, r, "", "unknown_resource", "tool_error", audit.Pass, "-32002")
			// The retrofit does not reject unknown parameters: a warning, not a failure.
			wantStatus(t, r, "weather", "unknown_param", "tool_error", audit.Warn, "accepted silently")
		})
	}
}

func TestStdoutNoiseIsCaught(t *testing.T) {
	r, code := runAudit(t, "--", bin["mcpgoserver"], "-wrap", "-print")
	if code != audit.ExitFailed {
		t.Fatalf("exit %d, want %d", code, audit.ExitFailed)
	}
	wantStatus(t, r, "", "session", "stdout", audit.Fail, "audit-fixture-mcpgo starting")
}

func TestBareGoSDKPanicKillsTheProcess(t *testing.T) {
	t.Run("stdio", func(t *testing.T) {
		r, code := runAudit(t, "--", bin["gosdkserver"])
		if code != audit.ExitFailed {
			t.Fatalf("exit %d, want %d", code, audit.ExitFailed)
		}
		// The typed handler indexes an empty list; the SDK has no recover.
		wantStatus(t, r, "sum", "huge_string", "alive", audit.Fail, "panic: runtime error: index out of range")
		wantStatus(t, r, "sum", "huge_string", "tool_error", audit.Fail, "exited with status 2")
		// Its own validation is fine: a tool error naming the parameter.
		wantStatus(t, r, "sum", "wrong_type", "tool_error", audit.Pass, "")
		wantStatus(t, r, "sum", "wrong_type", "names_param", audit.Pass, "")
		// A raw handler's Go error is JSON-RPC code 0, with the secret in it.
		wantStatus(t, r, "fetch_doc", "wrong_type", "tool_error", audit.Fail, "JSON-RPC 0")
		wantStatus(t, r, "fetch_doc", "wrong_type", "no_leak", audit.Fail, "GitHub token")
		if len(r.Restarts) == 0 {
			t.Error("no restarts recorded")
		}
		// The audit went on after each death: the server probes ran.
		wantStatus(t, r, "", "unknown_tool", "tool_error", audit.Pass, "-32602")
	})
	t.Run("http", func(t *testing.T) {
		u, cmd := serveHTTP(t, "gosdkserver")
		r, code := runAudit(t, u)
		if code != audit.ExitFailed {
			t.Fatalf("exit %d, want %d", code, audit.ExitFailed)
		}
		// Over HTTP the panic takes the whole server down: every later
		// request is refused.
		wantStatus(t, r, "sum", "huge_string", "tool_error", audit.Fail, "no answer")
		wantStatus(t, r, "sum", "huge_string", "alive", audit.Fail, "not answered")
		wantStatus(t, r, "", "fresh_session", "session", audit.Fail, "")
		if err := cmd.Wait(); err == nil {
			t.Error("the go-sdk server process is still running after the panic")
		}
	})
}

// TestWrappedGoSDKPasses: the go-sdk server that
// TestBareGoSDKPanicKillsTheProcess shows dying and leaking, with
// gosdk.Attach (and gosdk.Transport over stdio): no answer fails
// except the raw fetch_doc tool's own messages, which do not name its
// parameter (names_param), and, over HTTP only, 5 000 levels of nesting,
// which go-sdk's HTTP handler refuses with 400 before any middleware.
func TestWrappedGoSDKPasses(t *testing.T) {
	for _, tc := range []struct {
		name string
		args func(t *testing.T) []string
	}{
		{"stdio", func(*testing.T) []string { return []string{"--", bin["gosdkserver"], "-wrap"} }},
		{"http", func(t *testing.T) []string { u, _ := serveHTTP(t, "gosdkserver", "-wrap"); return []string{u} }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, _ := runAudit(t, tc.args(t)...)
			var left []string
			for _, f := range r.failures() {
				if !strings.Contains(f, " names_param:") && !(tc.name == "http" && strings.Contains(f, " deep_nesting ")) {
					left = append(left, f)
				}
			}
			if len(left) > 0 {
				t.Fatalf("score %.1f, failures mcpwrap should have prevented:\n%s", r.Score, strings.Join(left, "\n"))
			}
			if r.Budget.UsedTools != 2 {
				t.Errorf("audited %d tools, want the 2 read-only ones", r.Budget.UsedTools)
			}
		})
	}
}

func TestToolsFlagWidensTheScope(t *testing.T) {
	r, _ := runAudit(t, "--tools", "delete_record", "--", bin["mcpgoserver"], "-wrap")
	for _, tr := range r.Tools {
		if (tr.Name == "delete_record") != tr.Audited {
			t.Errorf("%s audited=%v (%s)", tr.Name, tr.Audited, tr.Skipped)
		}
	}
}

func TestBudgetsBoundTheRun(t *testing.T) {
	r, _ := runAudit(t, "--max-calls", "5", "--", bin["mcpgoserver"], "-wrap")
	if r.Budget.UsedCalls > 5 || !strings.Contains(r.Budget.Exhausted, "call budget (5) spent") {
		t.Errorf("used %d calls, exhausted %q", r.Budget.UsedCalls, r.Budget.Exhausted)
	}
	r, _ = runAudit(t, "--max-tools", "1", "--", bin["mcpgoserver"], "-wrap")
	if r.Budget.UsedTools != 1 {
		t.Errorf("used %d tools, want 1", r.Budget.UsedTools)
	}
}

// TestTwentyTools is the speed promise: a 20-tool server audited with the
// default budget well within 60 s (the docs give the whole-process figure).
func TestTwentyTools(t *testing.T) {
	start := time.Now()
	r, code := runAudit(t, "--allow-partial", "--", bin["mcpgoserver"], "-wrap", "-tools", "17")
	took := time.Since(start)
	if code != audit.ExitOK || r.Budget.UsedTools != 20 || r.Budget.Exhausted != "" {
		t.Fatalf("exit %d, %d tools, exhausted %q, failures:\n%s", code, r.Budget.UsedTools, r.Budget.Exhausted, strings.Join(r.failures(), "\n"))
	}
	if took > 60*time.Second {
		t.Errorf("took %s", took)
	}
	t.Logf("20 tools, %d calls in %s", r.Budget.UsedCalls, took.Round(time.Millisecond))
}

func TestNoRequestLeavesTheAuditedHost(t *testing.T) {
	var hit atomic.Int32
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hit.Add(1) }))
	defer other.Close()
	redirect := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/mcp", http.StatusTemporaryRedirect)
	}))
	defer redirect.Close()
	_, code := runAudit(t, redirect.URL+"/mcp")
	if code != audit.ExitUsage {
		t.Errorf("exit %d, want %d", code, audit.ExitUsage)
	}
	if hit.Load() != 0 {
		t.Errorf("the redirect target got %d requests", hit.Load())
	}
}

func TestOutputs(t *testing.T) {
	for _, tc := range []struct {
		flag string
		want []string
	}{
		{"--markdown", []string{"## mcpwrap audit", "| `weather` |", "**score 100.0%**"}},
		{"--color=never", []string{"tool ", "weather", "score 100.0%", "PASS"}},
	} {
		t.Run(tc.flag, func(t *testing.T) {
			var out bytes.Buffer
			code := audit.Main([]string{tc.flag, "--allow-partial", "--", bin["mcpgoserver"], "-wrap"}, &out, io.Discard)
			if code != audit.ExitOK {
				t.Fatalf("exit %d\n%s", code, out.String())
			}
			for _, w := range tc.want {
				if !strings.Contains(out.String(), w) {
					t.Errorf("output lacks %q:\n%s", w, out.String())
				}
			}
			if strings.Contains(out.String(), "\x1b[") {
				t.Error("colour escapes in output that is not a terminal")
			}
		})
	}
}

func TestUsage(t *testing.T) {
	for _, args := range [][]string{{}, {"ftp://x"}, {"a", "b"}, {"--ignore", "nope", "http://127.0.0.1:1/mcp"}, {"--max-calls", "0", "http://127.0.0.1:1/mcp"}} {
		if code := audit.Main(args, io.Discard, io.Discard); code != audit.ExitUsage {
			t.Errorf("%q: exit %d, want %d", args, code, audit.ExitUsage)
		}
	}
}

func TestMinScoreAndIgnoreGate(t *testing.T) {
	_, code := runAudit(t, "--min-score", "0", "--allow-partial", "--", bin["mcpgoserver"])
	if code != audit.ExitOK {
		t.Errorf("--min-score 0: exit %d", code)
	}
	r, code := runAudit(t, "--ignore", "stdout", "--allow-partial", "--", bin["mcpgoserver"], "-wrap", "-print")
	if code != audit.ExitOK || r.Failed != 0 {
		t.Errorf("--ignore stdout: exit %d, %d gated failures", code, r.Failed)
	}
}

func TestServerTextCannotDriveTheTerminal(t *testing.T) {
	for _, f := range []string{"--color=never", "--markdown"} {
		var out bytes.Buffer
		audit.Main([]string{f, "--", bin["mcpgoserver"], "-wrap", "-hostile-name"}, &out, io.Discard)
		if !strings.Contains(out.String(), "evil?[2J") {
			t.Errorf("%s: the hostile tool is not listed:\n%s", f, out.String())
		}
		if bytes.ContainsAny(out.Bytes(), "\x1b\x07") {
			t.Errorf("%s: escape bytes from the server reached the output", f)
		}
	}
}

// TestBrokenAnswersFail serves outboundtest's fault injector (every
// tools/call answered the way a broken server answers) and checks that the
// classifier's verdict reaches the scorecard.
func TestBrokenAnswersFail(t *testing.T) {
	for _, tc := range []struct{ scenario, want string }{
		{"jsonrpc_error?code=-32603", "-32603"},
		{"malformed_payload", "MALFORMED_JSON"},
		{"non_compliant_envelope?variant=null_result", "INVALID_TOOL_RESULT"},
		{"non_compliant_envelope?variant=wrong_id", "INVALID_ENVELOPE"},
		{"connection_close", "closed the connection"},
		{"sse_truncated", "INCOMPLETE_STREAM"},
		{"uncooperative_hang", "no answer within"},
	} {
		t.Run(tc.scenario, func(t *testing.T) {
			k := outboundtest.NewServer(tc.scenario)
			defer k.Close()
			r, code := runAudit(t, "--tools", "echo", "--call-timeout", "300ms", "--burst", "2", k.URL)
			if code != audit.ExitFailed {
				t.Fatalf("exit %d, want %d", code, audit.ExitFailed)
			}
			wantStatus(t, r, "echo", "wrong_type", "tool_error", audit.Fail, tc.want)
		})
	}
}

// TestUnannotatedGoSDKIsNotAPass: a bare go-sdk server whose tools carry no
// annotations gets no tool probe in the default scope; that run used to
// print 100.0 % PASS (exit 0) for a server whose panics kill it.
func TestUnannotatedGoSDKIsNotAPass(t *testing.T) {
	var out bytes.Buffer
	code := audit.Main([]string{"--color=never", "--", bin["gosdkserver"], "-no-annotations"}, &out, io.Discard)
	text := out.String()
	if code != audit.ExitIncomplete {
		t.Errorf("exit %d, want %d (INCOMPLETE)\n%s", code, audit.ExitIncomplete, text)
	}
	for _, want := range []string{
		"scope: tools annotated readOnlyHint only, because the probes may run a handler; 2 of 2 listed tools are not, and were not called: --all-tools calls every tool",
		"probed: 0 of 2 tools",
		"    tool sum: not annotated readOnlyHint (--all-tools, or --tools sum, calls it)\n",
		"INCOMPLETE — probed 0 of 2 listed tools, so this is no pass",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, ": PASS") {
		t.Errorf("a run that probed no tool passed:\n%s", text)
	}
	// Widened, the same server fails: its panic kills the process.
	r, code := runAudit(t, "--all-tools", "--", bin["gosdkserver"], "-no-annotations")
	if code != audit.ExitFailed || r.Verdict != "FAIL" || r.Coverage.ToolsProbed != 2 {
		t.Errorf("--all-tools: exit %d, verdict %s, probed %d", code, r.Verdict, r.Coverage.ToolsProbed)
	}
	wantStatus(t, r, "sum", "huge_string", "alive", audit.Fail, "panic: runtime error")
	// Accepted explicitly, a partial run passes.
	if _, code := runAudit(t, "--allow-partial", "--", bin["gosdkserver"], "-no-annotations"); code != audit.ExitOK {
		t.Errorf("--allow-partial: exit %d", code)
	}
}

// TestEverySkipHasItsReason: a server that dies with no restart left
// used to list the tools it never reached as "skipped: sum ()".
func TestEverySkipHasItsReason(t *testing.T) {
	var out bytes.Buffer
	audit.Main([]string{"--color=never", "--all-tools", "--restarts", "0", "--", bin["gosdkserver"], "-no-annotations"}, &out, io.Discard)
	text := out.String()
	r, _ := runAudit(t, "--all-tools", "--restarts", "0", "--", bin["gosdkserver"], "-no-annotations")
	for _, tr := range r.Tools {
		if tr.Skipped == "" && r.Coverage.ToolsProbed < r.Coverage.ToolsListed && !tr.Audited {
			t.Errorf("tool %s skipped without a reason", tr.Name)
		}
		if tr.Skipped != "" && !strings.Contains(text, "    tool "+tr.Name+": "+tr.Skipped+"\n") {
			t.Errorf("the skip of %s is not on its own line:\n%s", tr.Name, text)
		}
	}
	if !strings.Contains(text, "the server is gone") || strings.Contains(text, "()") {
		t.Errorf("skips:\n%s", text)
	}
}

// TestCountsAgree: the lists under the table and the score line count the
// same things (a warning used to be listed under "failures (1)" beside
// "0 failed").
func TestCountsAgree(t *testing.T) {
	var out bytes.Buffer
	audit.Main([]string{"--color=never", "--", bin["mcpgoserver"], "-wrap"}, &out, io.Discard)
	text := out.String()
	score := regexp.MustCompile(`\((\d+) passed, (\d+) failed, (\d+) warnings`).FindStringSubmatch(text)
	if score == nil {
		t.Fatalf("no score line:\n%s", text)
	}
	listed := func(head string) string {
		m := regexp.MustCompile(`\n` + head + ` \((\d+)\):`).FindStringSubmatch(text)
		if m == nil {
			return "0"
		}
		return m[1]
	}
	if listed("failures") != score[2] || listed("warnings") != score[3] {
		t.Errorf("failures (%s) and warnings (%s) listed, score line %s failed, %s warnings:\n%s", listed("failures"), listed("warnings"), score[2], score[3], text)
	}
	if score[3] == "0" {
		t.Errorf("the wrapped fixture has warnings (unknown_param accepted silently); the test lost its subject:\n%s", text)
	}
}

// TestResourcesAndPromptsAreProbed: a resource whose text holds a DSN and
// a prompt whose handler panics were never looked at.
func TestResourcesAndPromptsAreProbed(t *testing.T) {
	for _, tc := range []struct {
		name   string
		args   func(t *testing.T) []string
		panics string // what the prompt's panic does on this SDK
	}{
		{"gosdk-stdio", func(*testing.T) []string {
			return []string{"--", bin["gosdkserver"], "-leaky-resource", "-panicky-prompt"}
		}, "alive"},
		{"gosdk-http", func(t *testing.T) []string {
			u, _ := serveHTTP(t, "gosdkserver", "-leaky-resource", "-panicky-prompt")
			return []string{u}
		}, "answer"},
		{"mcpgo-stdio", func(*testing.T) []string {
			return []string{"--", bin["mcpgoserver"], "-leaky-resource", "-panicky-prompt"}
		}, "answer"},
		{"mcpgo-http", func(t *testing.T) []string {
			u, _ := serveHTTP(t, "mcpgoserver", "-leaky-resource", "-panicky-prompt")
			return []string{u}
		}, "answer"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, code := runAudit(t, tc.args(t)...)
			if code != audit.ExitFailed {
				t.Errorf("exit %d, want %d", code, audit.ExitFailed)
			}
			wantStatus(t, r, "fixture://config", "read", "no_leak", audit.Fail, "a URL with credentials")
			wantStatus(t, r, "review", "get", tc.panics, audit.Fail, "")
			if len(r.PromptGets) != 1 || !r.PromptGets[0].Audited {
				t.Errorf("prompts: %+v", r.PromptGets)
			}
		})
	}
}
