package audit

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"

	"unicode"
	"unicode/utf8"

	"golang.org/x/term"
)

// Report is the outcome of one audit; --json prints it as is.
type Report struct {
	Target    string       `json:"target"`
	Transport string       `json:"transport"`
	Server    serverInfo   `json:"server"`
	Scope     string       `json:"scope"`
	Budget    Budget       `json:"budget"`
	Resources int          `json:"resources"` // -1: not offered
	Prompts   int          `json:"prompts"`
	Tools     []ToolReport `json:"tools"`
	// ResourceReads and PromptGets are the listed resources and prompts,
	// each read or fetched once (Name is the URI or the prompt's name).
	ResourceReads []ToolReport `json:"resourceReads,omitempty"`
	PromptGets    []ToolReport `json:"promptGets,omitempty"`
	ServerChecks  []Result     `json:"serverChecks"`
	Stdout        *noise       `json:"stdoutNoise,omitempty"`
	Restarts      []string     `json:"restarts,omitempty"` // the probes after which the stdio process was restarted
	Notes         []string     `json:"notes,omitempty"`

	Checks   map[string]*Tally `json:"checks"`
	Passed   int               `json:"passed"`
	Failed   int               `json:"failed"`
	Warned   int               `json:"warned"`
	Score    float64           `json:"score"`
	Ignored  []string          `json:"ignored,omitempty"`
	MinScore float64           `json:"minScore"`
	Coverage Coverage          `json:"coverage"`
	// Verdict is PASS (the score reached --min-score and everything listed
	// was probed, or --allow-partial), INCOMPLETE (no failure, but not
	// everything was probed) or FAIL.
	Verdict string `json:"verdict"`
	OK      bool   `json:"ok"` // Verdict is PASS
}

// The verdicts.
const (
	verdictPass       = "PASS"
	verdictFail       = "FAIL"
	verdictIncomplete = "INCOMPLETE"
)

// Coverage is what was listed and what was probed: a tool counts as probed
// when every probe derived for it was sent.
type Coverage struct {
	ToolsListed     int  `json:"toolsListed"`
	ToolsProbed     int  `json:"toolsProbed"`
	ResourcesListed int  `json:"resourcesListed"`
	ResourcesRead   int  `json:"resourcesRead"`
	PromptsListed   int  `json:"promptsListed"`
	PromptsFetched  int  `json:"promptsFetched"`
	Complete        bool `json:"complete"`
}

// cover counts what was probed.
func (r *Report) cover(cfg config) {
	c := Coverage{ToolsListed: len(r.Tools), ResourcesListed: len(r.ResourceReads), PromptsListed: len(r.PromptGets)}
	for _, t := range r.Tools {
		if t.Audited && t.Probes == t.Planned {
			c.ToolsProbed++
		}
	}
	for _, t := range r.ResourceReads {
		if t.Audited {
			c.ResourcesRead++
		}
	}
	for _, t := range r.PromptGets {
		if t.Audited {
			c.PromptsFetched++
		}
	}
	c.Complete = c.ToolsProbed == c.ToolsListed && c.ResourcesRead == c.ResourcesListed && c.PromptsFetched == c.PromptsListed
	r.Coverage = c
}

// gap says in one sentence what was not probed, or "".
func (c Coverage) gap() string {
	var parts []string
	if c.ToolsProbed < c.ToolsListed {
		parts = append(parts, "probed "+strconv.Itoa(c.ToolsProbed)+" of "+strconv.Itoa(c.ToolsListed)+" listed tools")
	}
	if c.ResourcesRead < c.ResourcesListed {
		parts = append(parts, "read "+strconv.Itoa(c.ResourcesRead)+" of "+strconv.Itoa(c.ResourcesListed)+" resources")
	}
	if c.PromptsFetched < c.PromptsListed {
		parts = append(parts, "fetched "+strconv.Itoa(c.PromptsFetched)+" of "+strconv.Itoa(c.PromptsListed)+" prompts")
	}
	return strings.Join(parts, ", ")
}

// Budget is what the audit was allowed and what it used.
type Budget struct {
	MaxTools    int     `json:"maxTools"`
	MaxCalls    int     `json:"maxCalls"`
	Seconds     float64 `json:"seconds"`
	CallTimeout float64 `json:"callTimeoutSeconds"`
	Slow        float64 `json:"slowSeconds"`
	UsedTools   int     `json:"usedTools"`
	UsedCalls   int     `json:"usedCalls"`
	UsedSeconds float64 `json:"usedSeconds"`
	Exhausted   string  `json:"exhausted,omitempty"`
}

// ToolReport is one listed tool: whether it was audited, and its results.
type ToolReport struct {
	Name     string   `json:"name"`
	ReadOnly bool     `json:"readOnly"`
	Audited  bool     `json:"audited"`
	Skipped  string   `json:"skipped,omitempty"` // why it was not (fully) probed; never empty when Probes < Planned
	Planned  int      `json:"planned"`           // probes derived for it
	Probes   int      `json:"probes"`            // probes sent
	Results  []Result `json:"results,omitempty"`
}

// Tally counts one check's results.
type Tally struct {
	Pass int `json:"pass"`
	Fail int `json:"fail"`
	Warn int `json:"warn"`
}

func (r *Report) noteStdout(s *session) {
	st, ok := s.t.(*stdio)
	if !ok {
		return
	}
	n := st.stdoutNoise()
	if r.Stdout == nil {
		r.Stdout = &noise{}
	}
	r.Stdout.Lines += n.Lines
	r.Stdout.Bytes += n.Bytes
	for _, smp := range n.Samples {
		if len(r.Stdout.Samples) < 3 {
			r.Stdout.Samples = append(r.Stdout.Samples, smp)
		}
	}
}

func (r *Report) stdoutResult() Result {
	res := Result{Probe: "session", Check: checkStdout, Status: Pass, Detail: "every stdout line was a JSON-RPC message"}
	if r.Stdout != nil && r.Stdout.Lines > 0 {
		res.Status = Fail
		res.Detail = strconv.Itoa(r.Stdout.Lines) + " non-JSON-RPC lines (" + byteCount(r.Stdout.Bytes) + ") on stdout, e.g. " + strconv.Quote(r.Stdout.Samples[0]) +
			": a client may drop the session on the first one"
	}
	return res
}

func (r *Report) all() []Result {
	var all []Result
	for _, ts := range [][]ToolReport{r.Tools, r.ResourceReads, r.PromptGets} {
		for _, t := range ts {
			all = append(all, t.Results...)
		}
	}
	return append(all, r.ServerChecks...)
}

func (r *Report) score(cfg config) {
	r.Checks = map[string]*Tally{}
	r.Ignored = cfg.ignore
	r.MinScore = cfg.minScore
	for _, res := range r.all() {
		t := r.Checks[res.Check]
		if t == nil {
			t = &Tally{}
			r.Checks[res.Check] = t
		}
		gated := slicesIndex(cfg.ignore, res.Check) < 0
		switch res.Status {
		case Pass:
			t.Pass++
			if gated {
				r.Passed++
			}
		case Fail:
			t.Fail++
			if gated {
				r.Failed++
			}
		case Warn:
			t.Warn++
			r.Warned++
		}
	}
	r.Score = 100
	if n := r.Passed + r.Failed; n > 0 {
		r.Score = float64(int(1000*float64(r.Passed)/float64(n))) / 10
	}
	switch {
	case r.Score < cfg.minScore:
		r.Verdict = verdictFail
	case !r.Coverage.Complete && !cfg.allowPartial:
		r.Verdict = verdictIncomplete
	default:
		r.Verdict = verdictPass
	}
	r.OK = r.Verdict == verdictPass
}

func writeJSON(w io.Writer, r *Report) {
	e := json.NewEncoder(w)
	e.SetIndent("", "  ")
	_ = e.Encode(r)
}

// The probes' columns in the table.
var columns = []struct{ probe, head string }{
	{"missing_required", "miss"}, {"wrong_type", "type"}, {"unknown_param", "extra"},
	{"args_null", "null"}, {"args_array", "[]"}, {"args_string", "\"s\""},
	{"huge_string", "1MiB"}, {"huge_array", "50k[]"}, {"many_keys", "10kkeys"},
	{"deep_nesting", "deep"}, {"invalid_utf8", "utf8"}, {"control_chars", "ctrl"},
}

var letters = map[string]string{
	checkToolError: "E", checkNames: "N", checkSize: "S", checkTime: "T", checkAlive: "A", checkLeak: "L",
}

// cell sums up one probe's checks: "ok", "-" when not run, "w" for a
// warning, else the letters of the failed checks.
func cell(rs []Result, probe string) (string, Status) {
	var fails []string
	ran, warn := false, false
	for _, c := range checkOrder {
		for _, r := range rs {
			if r.Probe != probe || r.Check != c {
				continue
			}
			ran = true
			switch r.Status {
			case Fail:
				if !containsStr(fails, letters[c]) {
					fails = append(fails, letters[c])
				}
			case Warn:
				warn = true
			}
		}
	}
	switch {
	case !ran:
		return "-", ""
	case len(fails) > 0:
		return strings.Join(fails, ""), Fail
	case warn:
		return "w", Warn
	}
	return "ok", Pass
}

func containsStr(s []string, v string) bool { return slicesIndex(s, v) >= 0 }

func useColor(mode string, w io.Writer) bool {
	switch mode {
	case "always":
		return true
	case "never":
		return false
	}
	if os.Getenv("NO_COLOR") != "" {
		return false
	}
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

func paint(s string, st Status, color bool) string {
	if !color {
		return s
	}
	switch st {
	case Pass:
		return "\x1b[32m" + s + "\x1b[0m"
	case Fail:
		return "\x1b[31m" + s + "\x1b[0m"
	case Warn:
		return "\x1b[33m" + s + "\x1b[0m"
	}
	return s
}

func header(w io.Writer, r *Report, md bool) {
	b := r.Budget
	name := printable(r.Server.Name)
	if r.Server.Version != "" {
		name += " " + printable(r.Server.Version)
	}
	if md {
		fmt.Fprintf(w, "## mcpwrap audit: `%s`\n\n", r.Target)
	} else {
		fmt.Fprintf(w, "mcpwrap audit: %s\n", r.Target)
	}
	li := func(format string, a ...any) {
		if md {
			fmt.Fprint(w, "- ")
		} else {
			fmt.Fprint(w, "  ")
		}
		fmt.Fprintf(w, format+"\n", a...)
	}
	li("server: %s (protocol %s, %s)", name, printable(r.Server.Protocol), r.Transport)
	li("scope: %s", r.Scope)
	li("budget: %d tools, %d calls, %.0fs; %.0fs per call, slow after %.0fs — used %d tools, %d calls, %.1fs%s",
		b.MaxTools, b.MaxCalls, b.Seconds, b.CallTimeout, b.Slow, b.UsedTools, b.UsedCalls, b.UsedSeconds, ifs(b.Exhausted != "", "; stopped: "+b.Exhausted))
	c := r.Coverage
	li("probed: %d of %d tools%s%s", c.ToolsProbed, c.ToolsListed,
		ifs(r.Resources >= 0, fmt.Sprintf("; %d of %d resources read", c.ResourcesRead, c.ResourcesListed)),
		ifs(r.Prompts >= 0, fmt.Sprintf("; %d of %d prompts fetched", c.PromptsFetched, c.PromptsListed)))
	var skipped []string
	for _, g := range []struct {
		kind string
		ts   []ToolReport
	}{{"tool", r.Tools}, {"resource", r.ResourceReads}, {"prompt", r.PromptGets}} {
		for _, t := range g.ts {
			if t.Audited && t.Probes == t.Planned {
				continue
			}
			why := t.Skipped
			if why == "" {
				why = "not probed" // unreachable: every skip has its reason
			}
			skipped = append(skipped, g.kind+" "+printable(t.Name)+": "+printable(why))
		}
	}
	if len(skipped) > 0 {
		li("not probed (%d):", len(skipped))
		for i, s := range skipped {
			if i == 40 {
				li("  … %d more (see --json)", len(skipped)-40)
				break
			}
			li("  %s", clip(s, 300))
		}
	}
	if len(r.Restarts) > 0 {
		li("the process died and was restarted %d times, after: %s", len(r.Restarts), clip(strings.Join(r.Restarts, ", "), 300))
	}
	for _, n := range r.Notes {
		li("%s", printable(n))
	}
	fmt.Fprintln(w)
}

func ifs(c bool, s string) string {
	if c {
		return s
	}
	return ""
}

func writeTable(w io.Writer, r *Report, color bool) {
	header(w, r, false)
	width := len("tool")
	for _, t := range r.Tools {
		if t.Audited {
			width = max(width, min(len(t.Name), 40))
		}
	}
	if r.Budget.UsedTools == 0 {
		fmt.Fprintln(w, "no tool was probed (see \"not probed\" above)")
	} else {
		fmt.Fprintf(w, "%-*s", width+2, "tool")
		for _, c := range columns {
			fmt.Fprintf(w, " %-7s", c.head)
		}
		fmt.Fprintln(w)
		for _, t := range r.Tools {
			if !t.Audited {
				continue
			}
			fmt.Fprintf(w, "%-*s", width+2, clip(printable(t.Name), 40))
			for _, c := range columns {
				s, st := cell(t.Results, c.probe)
				fmt.Fprint(w, " "+paint(fmt.Sprintf("%-7s", s), st, color))
			}
			fmt.Fprintln(w)
		}
		fmt.Fprintln(w, "\n  cells: ok; - not applicable or not run; w warning; else the failed checks: E tool_error, N names_param, S size, T time, A alive, L no_leak")
	}
	for _, g := range []struct {
		head string
		ts   []ToolReport
	}{{"resources read", r.ResourceReads}, {"prompts fetched", r.PromptGets}} {
		if len(g.ts) == 0 {
			continue
		}
		fmt.Fprintf(w, "\n%s:\n", g.head)
		for _, t := range g.ts {
			if !t.Audited {
				continue
			}
			st, d := itemCell(t.Results)
			fmt.Fprintf(w, "  %-40s %s %s\n", clip(printable(t.Name), 40), paint(fmt.Sprintf("%-4s", st), st, color), printable(d))
		}
	}
	fmt.Fprintln(w, "\nserver checks:")
	for _, res := range r.ServerChecks {
		fmt.Fprintf(w, "  %-17s %-12s %s %s\n", res.Probe, res.Check, paint(fmt.Sprintf("%-4s", res.Status), res.Status, color), printable(res.Detail))
	}
	for _, l := range []struct {
		head string
		rs   []Result
	}{{"failures", r.listed(Fail, true)}, {"ignored failures (--ignore)", r.listed(Fail, false)}, {"warnings", r.listed(Warn, true)}} {
		if len(l.rs) == 0 {
			continue
		}
		fmt.Fprintf(w, "\n%s (%d):\n", l.head, len(l.rs))
		for i, f := range l.rs {
			if i == 40 {
				fmt.Fprintf(w, "  … %d more (see --json)\n", len(l.rs)-40)
				break
			}
			fmt.Fprintf(w, "  %s %s %s: %s\n", printable(subject(f)), f.Probe, f.Check, printable(f.Detail))
		}
	}
	fmt.Fprintln(w)
	writeTallies(w, r, false)
	fmt.Fprintf(w, "\nscore %.1f%% (%d passed, %d failed, %d warnings; gate --min-score %.0f%s): %s\n",
		r.Score, r.Passed, r.Failed, r.Warned, r.MinScore, ifs(len(r.Ignored) > 0, ", ignoring "+strings.Join(r.Ignored, ",")), paint(r.Verdict, verdictStatus(r.Verdict), color)+verdictWhy(r))
}

func verdictStatus(v string) Status {
	switch v {
	case verdictPass:
		return Pass
	case verdictIncomplete:
		return Warn
	}
	return Fail
}

// verdictWhy explains an INCOMPLETE verdict, or a pass that accepted gaps.
func verdictWhy(r *Report) string {
	gap := r.Coverage.gap()
	switch {
	case gap == "":
		return ""
	case r.Verdict == verdictIncomplete:
		return " — " + gap + ", so this is no pass (see \"not probed\"; --allow-partial accepts it)"
	case r.Verdict == verdictPass:
		return " (partial, --allow-partial: " + gap + ")"
	}
	return " (and " + gap + ")"
}

// subject names what a result is about: a tool, a resource or prompt, or
// the server.
func subject(res Result) string {
	switch {
	case res.Tool != "":
		return res.Tool
	case res.Item != "":
		return res.Item
	}
	return "server"
}

// itemCell sums up a resource's or prompt's checks like a table cell, with
// the answer's description.
func itemCell(rs []Result) (Status, string) {
	st, detail := Pass, ""
	var fails []string
	for _, res := range rs {
		if res.Check == checkAnswer {
			detail = res.Detail
		}
		switch res.Status {
		case Fail:
			st = Fail
			fails = append(fails, res.Check)
		case Warn:
			if st == Pass {
				st = Warn
			}
		}
	}
	if len(fails) > 0 {
		detail = "failed " + strings.Join(fails, ", ") + ": " + detail
	}
	return st, detail
}

// listed returns the results with status st: failures of gated checks
// (or, with gated false, of those --ignore leaves out), or every warning,
// so each list agrees with its count in the score line.
func (r *Report) listed(st Status, gated bool) []Result {
	var out []Result
	for _, res := range r.all() {
		isGated := slicesIndex(r.Ignored, res.Check) < 0
		if res.Status == st && (st == Warn && gated || st != Warn && isGated == gated) {
			out = append(out, res)
		}
	}
	return out
}

func writeTallies(w io.Writer, r *Report, md bool) {
	names := make([]string, 0, len(r.Checks))
	for k := range r.Checks {
		names = append(names, k)
	}
	sort.Slice(names, func(i, j int) bool { return slicesIndex(checkOrder, names[i]) < slicesIndex(checkOrder, names[j]) })
	if md {
		fmt.Fprintln(w, "| check | pass | fail | warn |\n|---|---|---|---|")
		for _, n := range names {
			t := r.Checks[n]
			fmt.Fprintf(w, "| `%s` | %d | %d | %d |\n", n, t.Pass, t.Fail, t.Warn)
		}
		return
	}
	fmt.Fprintln(w, "checks:")
	for _, n := range names {
		t := r.Checks[n]
		fmt.Fprintf(w, "  %-12s %4d pass %4d fail %4d warn\n", n, t.Pass, t.Fail, t.Warn)
	}
}

func writeMarkdown(w io.Writer, r *Report) {
	header(w, r, true)
	fmt.Fprint(w, "| tool |")
	for _, c := range columns {
		fmt.Fprintf(w, " %s |", strings.ReplaceAll(c.head, "\"", "&quot;"))
	}
	fmt.Fprint(w, "\n|---|")
	for range columns {
		fmt.Fprint(w, "---|")
	}
	fmt.Fprintln(w)
	for _, t := range r.Tools {
		if !t.Audited {
			continue
		}
		fmt.Fprintf(w, "| `%s` |", mdEscape(strings.ReplaceAll(printable(t.Name), "`", "'")))
		for _, c := range columns {
			s, _ := cell(t.Results, c.probe)
			fmt.Fprintf(w, " %s |", s)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w, "\nCells: ok; - not applicable or not run; w warning; else the failed checks: E tool_error, N names_param, S size, T time, A alive, L no_leak.")
	fmt.Fprintln(w, "\n| server probe | check | status | detail |\n|---|---|---|---|")
	for _, res := range r.ServerChecks {
		fmt.Fprintf(w, "| %s | `%s` | %s | %s |\n", res.Probe, res.Check, res.Status, mdEscape(res.Detail))
	}
	for _, g := range [][]ToolReport{r.ResourceReads, r.PromptGets} {
		for i, t := range g {
			if i == 0 {
				fmt.Fprintln(w, "\n| resource or prompt | status | answer |\n|---|---|---|")
			}
			if t.Audited {
				st, d := itemCell(t.Results)
				fmt.Fprintf(w, "| `%s` | %s | %s |\n", mdEscape(strings.ReplaceAll(printable(t.Name), "`", "'")), st, mdEscape(printable(d)))
			}
		}
	}
	fails, warns := r.listed(Fail, true), r.listed(Warn, true)
	if len(fails)+len(warns) > 0 {
		fmt.Fprintf(w, "\n<details><summary>%d failures, %d warnings</summary>\n\n| subject | probe | check | detail |\n|---|---|---|---|\n", len(fails), len(warns))
		for _, f := range append(fails, warns...) {
			fmt.Fprintf(w, "| %s | %s | `%s` %s | %s |\n", mdEscape(printable(subject(f))), f.Probe, f.Check, f.Status, mdEscape(printable(f.Detail)))
		}
		fmt.Fprintln(w, "\n</details>")
	}
	fmt.Fprintln(w)
	writeTallies(w, r, true)
	fmt.Fprintf(w, "\n**score %.1f%%** (%d passed, %d failed, %d warnings; gate %.0f): **%s**%s\n", r.Score, r.Passed, r.Failed, r.Warned, r.MinScore, r.Verdict, mdEscape(verdictWhy(r)))
}

// printable keeps what a server named (tools, itself) from driving the
// terminal: control characters and invalid UTF-8 become '?'.
func printable(s string) string {
	return strings.Map(func(r rune) rune {
		if r == utf8.RuneError || unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			return '?'
		}
		return r
	}, s)
}

func mdEscape(s string) string {
	s = strings.ReplaceAll(s, "|", "\\|")
	s = strings.ReplaceAll(s, "<", "&lt;")
	return strings.ReplaceAll(s, "\n", " ")
}
