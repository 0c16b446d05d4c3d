package audit

import (
	"encoding/json"
	"net"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mcpwrap/mcpwrap/wrap/outbound"
)

// The checks, in the order the report shows them.
const (
	checkToolError = "tool_error"  // an isError result (or an accepted protocol refusal), not -32603, a drop or null
	checkNames     = "names_param" // the message names the wrong parameter
	checkSize      = "size"        // an error answer is at most --max-error-bytes
	checkTime      = "time"        // answered within --slow
	checkAlive     = "alive"       // the process lives and the next request is answered
	checkLeak      = "no_leak"     // no secret-shaped text, internal address or stack trace
	checkStdout    = "stdout"      // stdio: only JSON-RPC messages on stdout
	checkSession   = "session"     // a fresh session with mcp-go's client works afterwards
	checkAnswer    = "answer"      // a resource read or prompt get is a well-formed result or a defined JSON-RPC error
)

var checkOrder = []string{checkToolError, checkNames, checkSize, checkTime, checkAlive, checkLeak, checkStdout, checkSession, checkAnswer}

// Status is a check's result.
type Status string

// The statuses. A warning is shown but not scored.
const (
	Pass Status = "pass"
	Fail Status = "fail"
	Warn Status = "warn"
)

// Result is one check of one probe.
type Result struct {
	Tool   string `json:"tool,omitempty"`
	Item   string `json:"item,omitempty"` // the resource's URI or the prompt's name
	Probe  string `json:"probe"`
	Check  string `json:"check"`
	Status Status `json:"status"`
	Detail string `json:"detail,omitempty"`
}

// judge runs the per-answer checks on one probe's answer.
func (a *auditor) judge(p probe, r response) []Result {
	res := func(check string, st Status, detail string) Result {
		return Result{Tool: p.tool, Probe: p.name, Check: check, Status: st, Detail: detail}
	}
	var out []Result
	ans := describe(r)
	v := r.verdict
	answered := r.err == nil && (v.Outcome == outbound.OutcomeToolError || v.Outcome == outbound.OutcomeToolSuccess ||
		v.Outcome == outbound.OutcomeJSONRPCError || v.Outcome == outbound.OutcomeInputRequired)

	// tool_error
	switch {
	case !answered:
		out = append(out, res(checkToolError, Fail, ans))
	case v.Outcome == outbound.OutcomeToolError:
		out = append(out, res(checkToolError, Pass, ans))
	case v.Outcome == outbound.OutcomeJSONRPCError && slices.Contains(p.codes, v.ErrorCode):
		out = append(out, res(checkToolError, Pass, ans))
	case v.Outcome == outbound.OutcomeJSONRPCError:
		why := "a JSON-RPC error where an isError result belongs: the model sees a protocol failure, not a message it can act on"
		if v.ErrorCode == -32603 {
			why = "-32603 internal error: the model sees a broken server, not a message it can act on"
		}
		out = append(out, res(checkToolError, Fail, ans+"; "+why))
	default: // success or input_required
		switch p.success {
		case successPasses:
			out = append(out, res(checkToolError, Pass, ans))
		case successWarns:
			out = append(out, res(checkToolError, Warn, ans+"; accepted silently: the model believes the parameter did something"))
		default:
			out = append(out, res(checkToolError, Fail, ans+"; an invalid call answered as a success: misinformation in the model's context"))
		}
	}

	text := answerText(r.msg)
	isErr := answered && (v.Outcome == outbound.OutcomeToolError || v.Outcome == outbound.OutcomeJSONRPCError)

	// names_param
	// Only a call the schema rejects has a wrong parameter to name.
	if len(p.params) > 0 && p.invalid {
		switch {
		case !isErr:
			out = append(out, res(checkNames, Fail, "no error message to name "+strconv.Quote(p.params[0])))
		case namesAny(text, p.params):
			out = append(out, res(checkNames, Pass, ""))
		default:
			out = append(out, res(checkNames, Fail, "the message does not name "+quoteList(p.params)+": "+strconv.Quote(clip(text, 160))))
		}
	}

	// size
	if r.size > 0 && (p.invalid || isErr) {
		if r.size > int64(a.cfg.maxErrorBytes) {
			what := " error answer"
			if p.invalid {
				what = " answer to an invalid call"
			}
			out = append(out, res(checkSize, Fail, byteCount(r.size)+what+" (limit "+byteCount(int64(a.cfg.maxErrorBytes))+"): the model's context fills with it"))
		} else {
			out = append(out, res(checkSize, Pass, ""))
		}
	}

	return a.timeAndLeak(out, res, r.elapsed, r.err != nil && strings.HasPrefix(r.err.Error(), "no answer within"), r.msg)
}

// timeAndLeak appends the time check (late, or never answered) and, for an
// answer that came, the no_leak check.
func (a *auditor) timeAndLeak(out []Result, res func(string, Status, string) Result, elapsed time.Duration, never bool, msg []byte) []Result {
	if elapsed > a.cfg.slow || never {
		out = append(out, res(checkTime, Fail, "answered after "+elapsed.Round(time.Millisecond).String()+" (limit "+a.cfg.slow.String()+")"))
	} else {
		out = append(out, res(checkTime, Pass, ""))
	}
	if msg != nil {
		if found := a.leaks(string(msg)); found != "" {
			out = append(out, res(checkLeak, Fail, found))
		} else {
			out = append(out, res(checkLeak, Pass, ""))
		}
	}
	return out
}

// describe says in a few words what came back.
func describe(r response) string {
	v := r.verdict
	took := " in " + r.elapsed.Round(time.Millisecond).String()
	if r.err != nil {
		return "no answer: " + r.err.Error()
	}
	switch v.Outcome {
	case outbound.OutcomeToolError, outbound.OutcomeToolSuccess:
		return string(v.Outcome) + " (" + byteCount(r.size) + took + ") " + strconv.Quote(clip(answerText(r.msg), 100))
	case outbound.OutcomeJSONRPCError:
		return "JSON-RPC " + strconv.FormatInt(v.ErrorCode, 10) + " (" + byteCount(r.size) + took + ") " + strconv.Quote(clip(v.ErrorMessage, 100))
	}
	d := string(v.Outcome)
	if v.Detail != "" {
		d += ": " + v.Detail
	}
	return d + took
}

func byteCount(n int64) string {
	switch {
	case n >= 1<<20:
		return strconv.FormatFloat(float64(n)/(1<<20), 'f', 1, 64) + " MiB"
	case n >= 1<<10:
		return strconv.FormatFloat(float64(n)/(1<<10), 'f', 1, 64) + " KiB"
	}
	return strconv.FormatInt(n, 10) + " B"
}

// answerText is what a model reads from the answer: the error's message
// and data, or the result's text contents and structured content.
func answerText(msg []byte) string {
	var m struct {
		Error *struct {
			Message string          `json:"message"`
			Data    json.RawMessage `json:"data"`
		} `json:"error"`
		Result *struct {
			Content []struct {
				Type string `json:"type"`
				Text string `json:"text"`
			} `json:"content"`
			Structured json.RawMessage `json:"structuredContent"`
		} `json:"result"`
	}
	if json.Unmarshal(msg, &m) != nil {
		return string(msg)
	}
	var b strings.Builder
	if m.Error != nil {
		b.WriteString(m.Error.Message)
		if len(m.Error.Data) > 0 && string(m.Error.Data) != "null" {
			b.WriteString(" ")
			b.Write(m.Error.Data)
		}
	}
	if m.Result != nil {
		for _, c := range m.Result.Content {
			if c.Type == "text" {
				if b.Len() > 0 {
					b.WriteString(" ")
				}
				b.WriteString(c.Text)
			}
		}
		if len(m.Result.Structured) > 0 && string(m.Result.Structured) != "null" {
			b.WriteString(" ")
			b.Write(m.Result.Structured)
		}
	}
	return b.String()
}

func namesAny(text string, params []string) bool {
	for _, p := range params {
		re := regexp.MustCompile(`(^|[^A-Za-z0-9_])` + regexp.QuoteMeta(p) + `($|[^A-Za-z0-9_])`)
		if re.MatchString(text) {
			return true
		}
	}
	return false
}

func quoteList(ps []string) string {
	q := make([]string, 0, 3)
	for i, p := range ps {
		if i == 3 {
			q = append(q, "…")
			break
		}
		q = append(q, strconv.Quote(p))
	}
	return strings.Join(q, " or ")
}

// leakPatterns are secret-shaped text, internal addresses and stack
// traces. Every match holds one of its hints (in lower case when fold): a
// pattern is searched for only in a text with a hint, so that a large
// answer costs one fast substring search a pattern instead of a regular
// expression's walk (BenchmarkLeaks).
var leakPatterns = []struct {
	what  string
	hints []string
	fold  bool
	re    *regexp.Regexp
}{
	{"an API key (sk-…)", []string{"sk-"}, false, regexp.MustCompile(`\bsk-[A-Za-z0-9_-]{20,}`)},
	{"a GitHub token", []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"}, false,
		regexp.MustCompile(`\b(gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,})`)},
	{"an AWS access key id", []string{"AKIA"}, false, regexp.MustCompile(`\bAKIA[0-9A-Z]{16}\b`)},
	{"a Slack token", []string{"xox"}, false, regexp.MustCompile(`\bxox[abprs]-[A-Za-z0-9-]{10,}`)},
	{"a private key", []string{"-----BEGIN "}, false, regexp.MustCompile(`-----BEGIN [A-Z ]*PRIVATE KEY-----`)},
	{"a URL with credentials", []string{"://"}, false, regexp.MustCompile(`\b[a-z][a-z0-9+.-]*://[^/\s:@"']+:[^/\s@"']+@`)},
	{"a password or token assignment", []string{"password", "passwd", "secret", "token", "api"}, true,
		regexp.MustCompile(`(?i)\b(password|passwd|secret|token|api[_-]?key)\b["']?\s*[:=]\s*["']?([^\s"',;&\[\]{}*]{4,})`)},
	{"a Go stack trace", []string{"goroutine ", ".go:"}, false, regexp.MustCompile(`goroutine \d+ \[|\.go:\d+ \+0x[0-9a-f]+`)},
	{"a JavaScript stack trace", []string{"at "}, false, regexp.MustCompile(`\n\s+at [^\n]+ \([^\n)]+:\d+:\d+\)`)},
	{"a Python traceback", []string{"Traceback (most recent call last)"}, false, regexp.MustCompile(`Traceback \(most recent call last\)`)},
	{"an internal address", []string{"10.", "192.168.", "172.", "169.254.", "127.", "localhost", "[::1]:"}, false,
		regexp.MustCompile(`\b(10\.\d{1,3}\.\d{1,3}\.\d{1,3}|192\.168\.\d{1,3}\.\d{1,3}|172\.(1[6-9]|2\d|3[01])\.\d{1,3}\.\d{1,3}|169\.254\.\d{1,3}\.\d{1,3})\b|\b(127\.\d{1,3}\.\d{1,3}\.\d{1,3}|localhost|\[::1\]):\d{1,5}\b`)},
}

// leaks names what of leakPatterns the answer holds, quoting a short,
// masked sample; "" when nothing.
func (a *auditor) leaks(s string) string {
	if len(s) > 1<<20 {
		s = s[:1<<20]
	}
	if strings.Contains(s, canary) {
		return "echoes the secret-shaped value the audit sent (" + canary[:6] + "…)"
	}
	lower := strings.ToLower(s)
	for _, p := range leakPatterns {
		if !hinted(s, lower, p.hints, p.fold) {
			continue
		}
		for _, m := range p.re.FindAllString(s, 4) {
			if a.ownAddress(m) {
				continue
			}
			return "holds " + p.what + ": " + strconv.Quote(mask(m))
		}
	}
	return ""
}

// hinted reports whether s (lower: s in lower case, when fold) holds one
// of hints.
func hinted(s, lower string, hints []string, fold bool) bool {
	if fold {
		s = lower
	}
	for _, h := range hints {
		if strings.Contains(s, h) {
			return true
		}
	}
	return false
}

// ownAddress: the audited URL's own host:port is no leak.
func (a *auditor) ownAddress(m string) bool {
	if a.host == "" {
		return false
	}
	h, p, err := net.SplitHostPort(strings.Trim(m, "[]"))
	return err == nil && net.JoinHostPort(h, p) == a.host
}

func mask(s string) string {
	s = strings.TrimSpace(s)
	if len(s) <= 12 {
		return clip(s, 12)
	}
	return s[:8] + "…"
}

// judgeRPC checks the answer to a resources/read or prompts/get of
// something that does not exist: a JSON-RPC error with a defined code
// (-32002 resource not found, -32602 invalid params), bounded, quick, with
// nothing leaked.
func (a *auditor) judgeRPC(probe string, r response) []Result {
	res := func(check string, st Status, detail string) Result {
		return Result{Probe: probe, Check: check, Status: st, Detail: detail}
	}
	var out []Result
	var m rpcAnswer
	took := " in " + r.elapsed.Round(time.Millisecond).String()
	switch {
	case r.err != nil:
		out = append(out, res(checkToolError, Fail, "no answer: "+r.err.Error()))
	case json.Unmarshal(r.msg, &m) != nil:
		out = append(out, res(checkToolError, Fail, "the answer is not JSON-RPC: "+strconv.Quote(clip(string(r.msg), 100))))
	case m.Error == nil:
		out = append(out, res(checkToolError, Fail, "a result for something that does not exist"+took))
	case m.Error.Code == -32002 || m.Error.Code == -32602:
		out = append(out, res(checkToolError, Pass, "JSON-RPC "+strconv.FormatInt(m.Error.Code, 10)+took+" "+strconv.Quote(clip(m.Error.Message, 100))))
	default:
		out = append(out, res(checkToolError, Fail, "JSON-RPC "+strconv.FormatInt(m.Error.Code, 10)+took+" "+strconv.Quote(clip(m.Error.Message, 100))+
			": not found is -32002 (resources) or -32602"))
	}
	if r.size > int64(a.cfg.maxErrorBytes) {
		out = append(out, res(checkSize, Fail, byteCount(r.size)+" error answer (limit "+byteCount(int64(a.cfg.maxErrorBytes))+")"))
	} else if r.size > 0 {
		out = append(out, res(checkSize, Pass, ""))
	}
	return a.timeAndLeak(out, res, r.elapsed, false, r.msg)
}

// judgeItem checks the answer to reading a listed resource or fetching a
// listed prompt: a result whose member (contents, messages) is a list, or a
// JSON-RPC error with a defined code that is not -32603 (a handler's Go
// error, a recovered panic: the model sees a broken server); bounded when
// an error, quick, alive, nothing leaked.
func (a *auditor) judgeItem(probe, item, member string, r response) []Result {
	res := func(check string, st Status, detail string) Result {
		return Result{Item: item, Probe: probe, Check: check, Status: st, Detail: detail}
	}
	var out []Result
	var m struct {
		Result map[string]json.RawMessage `json:"result"`
		Error  *struct {
			Code    int64  `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	took := " in " + r.elapsed.Round(time.Millisecond).String()
	isErr := false
	switch {
	case r.err != nil:
		out = append(out, res(checkAnswer, Fail, "no answer: "+r.err.Error()))
	case r.verdict.Outcome == outbound.OutcomeHTTPError || r.verdict.Outcome == outbound.OutcomeNetworkError ||
		r.verdict.Outcome == outbound.OutcomeIncompleteStream || r.verdict.Outcome == outbound.OutcomeBodyTooLarge:
		out = append(out, res(checkAnswer, Fail, describe(r)))
	case json.Unmarshal(r.msg, &m) != nil:
		out = append(out, res(checkAnswer, Fail, "the answer is not JSON-RPC: "+strconv.Quote(clip(string(r.msg), 100))))
	case m.Error != nil:
		isErr = true
		d := "JSON-RPC " + strconv.FormatInt(m.Error.Code, 10) + took + " " + strconv.Quote(clip(m.Error.Message, 100))
		switch m.Error.Code {
		case -32603:
			out = append(out, res(checkAnswer, Fail, d+": -32603 internal error: the model sees a broken server, not a message it can act on"))
		case 0:
			out = append(out, res(checkAnswer, Fail, d+": code 0 is no JSON-RPC error code"))
		default:
			out = append(out, res(checkAnswer, Pass, d))
		}
	case m.Result == nil:
		out = append(out, res(checkAnswer, Fail, `"result": null or missing`+took+": neither an answer nor an error"))
	default:
		var list []json.RawMessage
		if json.Unmarshal(m.Result[member], &list) != nil {
			out = append(out, res(checkAnswer, Fail, "the result has no "+member+" list"+took))
		} else {
			out = append(out, res(checkAnswer, Pass, strconv.Itoa(len(list))+" "+member+" ("+byteCount(r.size)+took+")"))
		}
	}
	if isErr && r.size > int64(a.cfg.maxErrorBytes) {
		out = append(out, res(checkSize, Fail, byteCount(r.size)+" error answer (limit "+byteCount(int64(a.cfg.maxErrorBytes))+")"))
	} else if isErr {
		out = append(out, res(checkSize, Pass, ""))
	}
	return a.timeAndLeak(out, res, r.elapsed, r.err != nil && strings.HasPrefix(r.err.Error(), "no answer within"), r.msg)
}
