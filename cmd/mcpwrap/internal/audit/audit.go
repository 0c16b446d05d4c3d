package audit

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/client"
	mcptransport "github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"net/textproto"
)

// Exit statuses of Main.
const (
	ExitOK         = 0 // every gated check passed (or the score reached --min-score), and everything listed was probed
	ExitFailed     = 1 // checks failed
	ExitUsage      = 2 // bad flags, or the server could not be started, initialized or listed
	ExitIncomplete = 3 // no check failed, but some listed tools, resources or prompts were not probed (--allow-partial accepts it)
)

type config struct {
	url          string
	command      []string
	headers      []string
	tools        []string
	allTools     bool
	allowPartial bool

	maxTools      int
	maxCalls      int
	budget        time.Duration
	callTimeout   time.Duration
	slow          time.Duration
	maxErrorBytes int
	maxRead       int
	burst         int
	restarts      int

	json, markdown bool
	color          string
	minScore       float64
	ignore         []string
}

type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }
func (l *listFlag) Set(s string) error {
	for _, v := range strings.Split(s, ",") {
		if v = strings.TrimSpace(v); v != "" {
			*l = append(*l, v)
		}
	}
	return nil
}

type headerFlag []string

func (h *headerFlag) String() string     { return strings.Join(*h, "; ") }
func (h *headerFlag) Set(s string) error { *h = append(*h, s); return nil }

func parse(args []string, stderr io.Writer) (config, error) {
	var c config
	fs := flag.NewFlagSet("mcpwrap audit", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, `usage: mcpwrap audit [flags] <url>
       mcpwrap audit [flags] -- <command> [args…]

Scores an MCP server against the calls that make models hallucinate: invalid,
hostile and concurrent tools/calls derived from each tool's input schema.
Only tools annotated readOnlyHint are called unless --tools or --all-tools;
a run that leaves listed tools, resources or prompts unprobed is INCOMPLETE
(exit 3) unless --allow-partial.

`)
		fs.PrintDefaults()
	}
	var tools listFlag
	var ignore listFlag
	var headers headerFlag
	fs.Var(&tools, "tools", "comma-separated tools to call, read-only or not")
	fs.BoolVar(&c.allTools, "all-tools", false, "call every tool, including those not annotated read-only (they may act)")
	fs.BoolVar(&c.allowPartial, "allow-partial", false, "pass a run that did not probe every listed tool, resource and prompt (by default it is INCOMPLETE, exit 3)")
	fs.Var(&headers, "header", "`Name: value` sent with every HTTP request (repeatable), e.g. an Authorization header")
	fs.IntVar(&c.maxTools, "max-tools", 25, "budget: most tools audited")
	fs.IntVar(&c.maxCalls, "max-calls", 500, "budget: most tools/call requests sent")
	fs.DurationVar(&c.budget, "budget", 60*time.Second, "budget: time for all probes; the fresh-session check adds at most one --call-timeout")
	fs.DurationVar(&c.callTimeout, "call-timeout", 10*time.Second, "longest wait for one answer")
	fs.DurationVar(&c.slow, "slow", 5*time.Second, "an answer slower than this fails the time check")
	fs.IntVar(&c.maxErrorBytes, "max-error-bytes", 16<<10, "largest acceptable answer to an invalid call")
	fs.IntVar(&c.maxRead, "max-read", 4<<20, "bytes read of one answer at most")
	fs.IntVar(&c.burst, "burst", 16, "concurrent calls in the burst probe")
	fs.IntVar(&c.restarts, "restarts", 10, "stdio: times a dead server is restarted to go on")
	fs.BoolVar(&c.json, "json", false, "print the report as JSON")
	fs.BoolVar(&c.markdown, "markdown", false, "print the report as Markdown")
	fs.StringVar(&c.color, "color", "auto", "colour the table: auto (on a terminal, unless NO_COLOR), always, never")
	fs.Float64Var(&c.minScore, "min-score", 100, "exit 1 when the score (percent of gated checks passed) is below this")
	fs.Var(&ignore, "ignore", "comma-separated checks shown but not gated: "+strings.Join(checkOrder, ","))
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	c.tools, c.ignore, c.headers = tools, ignore, headers
	rest := fs.Args()
	dash := len(args) > 0 && len(rest) > 0 && slicesIndex(args, "--") >= 0 && len(args)-slicesIndex(args, "--")-1 == len(rest)
	switch {
	case len(rest) == 0:
		fs.Usage()
		return c, errors.New("a URL or -- <command> is required")
	case dash:
		c.command = rest
	case len(rest) == 1:
		u, err := url.Parse(rest[0])
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return c, fmt.Errorf("%q is not an http(s) URL; give a command after --", rest[0])
		}
		c.url = rest[0]
	default:
		return c, errors.New("give one URL, or a command after --")
	}
	for _, ig := range c.ignore {
		if slicesIndex(checkOrder, ig) < 0 {
			return c, fmt.Errorf("--ignore: unknown check %q (checks: %s)", ig, strings.Join(checkOrder, ", "))
		}
	}
	if c.maxTools < 0 || c.maxCalls < 1 || c.budget <= 0 || c.callTimeout <= 0 || c.burst < 1 || c.maxRead < 1<<10 {
		return c, errors.New("budgets must be positive")
	}
	if c.burst > 256 {
		c.burst = 256
	}
	return c, nil
}

func slicesIndex(s []string, v string) int {
	for i, x := range s {
		if x == v {
			return i
		}
	}
	return -1
}

// Main runs `mcpwrap audit` with args (the flags and target after the
// subcommand's name) and returns the process's exit status.
func Main(args []string, stdout, stderr io.Writer) int {
	cfg, err := parse(args, stderr)
	if err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(stderr, "mcpwrap audit:", err)
		}
		if errors.Is(err, flag.ErrHelp) {
			return ExitOK
		}
		return ExitUsage
	}
	ctx := context.Background()
	rep, err := run(ctx, cfg)
	if err != nil {
		fmt.Fprintln(stderr, "mcpwrap audit:", err)
		return ExitUsage
	}
	switch {
	case cfg.json:
		writeJSON(stdout, rep)
	case cfg.markdown:
		writeMarkdown(stdout, rep)
	default:
		writeTable(stdout, rep, useColor(cfg.color, stdout))
	}
	switch rep.Verdict {
	case verdictPass:
		return ExitOK
	case verdictIncomplete:
		return ExitIncomplete
	}
	return ExitFailed
}

// auditor holds one run's state.
type auditor struct {
	cfg  config
	host string // the audited URL's host:port, which is no leak

	sess  *session
	calls int
	start time.Time
	rep   *Report
}

func (a *auditor) newSession(ctx context.Context) (*session, error) {
	var t transport
	if a.cfg.url != "" {
		u, _ := url.Parse(a.cfg.url)
		h := &httpTransport{url: a.cfg.url, client: guardedClient(u), maxRead: a.cfg.maxRead, headers: map[string][]string{}}
		for _, kv := range a.cfg.headers {
			k, v, ok := strings.Cut(kv, ":")
			if !ok {
				return nil, fmt.Errorf("--header %q: want Name: value", kv)
			}
			h.headers[textproto.CanonicalMIMEHeaderKey(strings.TrimSpace(k))] = []string{strings.TrimSpace(v)}
		}
		t = h
	} else {
		s, err := startStdio(a.cfg.command, a.cfg.maxRead)
		if err != nil {
			return nil, fmt.Errorf("start %s: %w", a.cfg.command[0], err)
		}
		t = s
	}
	sess := &session{t: t, callTimeout: a.cfg.callTimeout}
	if err := sess.open(ctx); err != nil {
		if st, ok := t.(*stdio); ok {
			if dead, how := st.exited(); dead {
				err = fmt.Errorf("%w (the process %s; stderr: %s)", err, how, clip(lastLine(st.stderr.String()), 200))
			}
		}
		t.close()
		return nil, err
	}
	return sess, nil
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}

// budgetLeft reports whether another tools/call may be sent.
func (a *auditor) budgetLeft() (bool, string) {
	if a.calls >= a.cfg.maxCalls {
		return false, "call budget (" + strconv.Itoa(a.cfg.maxCalls) + ") spent"
	}
	if time.Since(a.start) >= a.cfg.budget {
		return false, "time budget (" + a.cfg.budget.String() + ") spent"
	}
	return true, ""
}

func (a *auditor) call(ctx context.Context, p probe) response {
	a.calls++
	return a.sess.request(ctx, "tools/call", callParams(p))
}

// afterProbe checks the server is alive and answering after a probe; a
// dead stdio server is restarted (within --restarts) so the audit goes on.
func (a *auditor) afterProbe(ctx context.Context, tool, name string) Result {
	r := Result{Tool: tool, Probe: name, Check: checkAlive, Status: Pass}
	if dead, how := a.sess.t.exited(); dead {
		r.Status = Fail
		r.Detail = "the server process " + how
		if st, ok := a.sess.t.(*stdio); ok {
			if l := panicLine(st.stderr.String()); l != "" {
				r.Detail += ": " + strconv.Quote(clip(l, 160))
			}
		}
		a.restart(ctx, tool, name)
		return r
	}
	if err := a.sess.ping(ctx); err != nil {
		r.Status = Fail
		r.Detail = "the next request (ping) was not answered: " + err.Error()
		if dead, how := a.sess.t.exited(); dead {
			r.Detail = "the server process " + how
			a.restart(ctx, tool, name)
		}
	}
	return r
}

// panicLine finds the panic sentence in a dead process's stderr.
func panicLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(l, "panic: ") || strings.HasPrefix(l, "fatal error: ") {
			return l
		}
	}
	return ""
}

func (a *auditor) restart(ctx context.Context, tool, probe string) {
	if _, ok := a.sess.t.(*stdio); !ok {
		return
	}
	a.rep.noteStdout(a.sess)
	a.sess.t.close()
	if len(a.rep.Restarts) >= a.cfg.restarts {
		a.sess = nil
		return
	}
	s, err := a.newSession(ctx)
	if err != nil {
		a.rep.Notes = append(a.rep.Notes, "restart failed: "+err.Error())
		a.sess = nil
		return
	}
	a.rep.Restarts = append(a.rep.Restarts, strings.TrimSpace(tool+" "+probe))
	a.sess = s
}

func run(ctx context.Context, cfg config) (*Report, error) {
	a := &auditor{cfg: cfg, start: time.Now()}
	if cfg.url != "" {
		u, _ := url.Parse(cfg.url)
		a.host = u.Host
	}
	a.rep = &Report{Target: target(cfg), Transport: map[bool]string{true: "streamable HTTP", false: "stdio"}[cfg.url != ""]}
	sess, err := a.newSession(ctx)
	if err != nil {
		return nil, err
	}
	a.sess = sess
	a.rep.Server = sess.server
	defer func() {
		if a.sess != nil {
			a.sess.t.close()
		}
	}()
	tools, err := sess.listTools(ctx, 20)
	if err != nil {
		return nil, err
	}
	var resources []resource
	var prompts []prompt
	a.rep.Resources, a.rep.Prompts = -1, -1
	if offered, err := sess.list(ctx, "resources", "resources/list", "resources", 20, &resources); offered {
		a.rep.Resources = len(resources)
		if err != nil {
			a.rep.Notes = append(a.rep.Notes, "listing resources failed, so none was read: "+clip(err.Error(), 200))
		}
	}
	if offered, err := sess.list(ctx, "prompts", "prompts/list", "prompts", 20, &prompts); offered {
		a.rep.Prompts = len(prompts)
		if err != nil {
			a.rep.Notes = append(a.rep.Notes, "listing prompts failed, so none was fetched: "+clip(err.Error(), 200))
		}
	}

	selected := a.selectTools(tools)
	a.rep.Budget = Budget{MaxTools: cfg.maxTools, MaxCalls: cfg.maxCalls, Seconds: cfg.budget.Seconds(), CallTimeout: cfg.callTimeout.Seconds(), Slow: cfg.slow.Seconds()}

	// The server probes run first, so a slow tool cannot spend their budget.
	var first, firstValid *probe // calls on an audited tool for the burst and the cancel
	if len(selected) > 0 {
		for _, p := range probes(selected[0]) {
			switch p.name {
			case "missing_required":
				first = &p
			case "unknown_param":
				firstValid = &p
			}
		}
	}
	a.serverProbes(ctx, first, firstValid)
	// Resources and prompts are one request each: before the tools, whose
	// probes can spend the budget.
	a.readResources(ctx, resources)
	a.getPrompts(ctx, prompts)
	for i := range selected {
		t := selected[i]
		tr := &a.rep.Tools[slicesIndexTool(a.rep.Tools, t.Name)]
		ps := probes(t)
		tr.Planned = len(ps)
		for _, p := range ps {
			if !a.canSend() {
				break
			}
			r := a.call(ctx, p)
			tr.Results = append(tr.Results, a.judge(p, r)...)
			tr.Results = append(tr.Results, a.afterProbe(ctx, t.Name, p.name))
			tr.Probes++
		}
		tr.Audited = tr.Probes > 0
		switch {
		case tr.Probes == 0:
			tr.Skipped = "not probed: " + a.rep.Budget.Exhausted
		case tr.Probes < tr.Planned:
			tr.Skipped = strconv.Itoa(tr.Probes) + " of " + strconv.Itoa(tr.Planned) + " probes sent, then stopped: " + a.rep.Budget.Exhausted
		}
	}
	if a.sess != nil {
		a.rep.noteStdout(a.sess)
	}
	if a.cfg.command != nil {
		a.rep.ServerChecks = append(a.rep.ServerChecks, a.rep.stdoutResult())
	}
	a.rep.ServerChecks = append(a.rep.ServerChecks, a.freshSession(ctx, len(tools)))
	a.rep.Budget.UsedTools = 0
	for _, t := range a.rep.Tools {
		if t.Audited {
			a.rep.Budget.UsedTools++
		}
	}
	a.rep.Budget.UsedCalls = a.calls
	a.rep.Budget.UsedSeconds = time.Since(a.start).Seconds()
	a.rep.cover(cfg)
	a.rep.score(cfg)
	return a.rep, nil
}

// canSend reports whether another probe may be sent; when not, the reason
// is in Budget.Exhausted.
func (a *auditor) canSend() bool {
	if ok, why := a.budgetLeft(); !ok {
		a.rep.Budget.Exhausted = why
		return false
	}
	if a.sess == nil {
		a.rep.Budget.Exhausted = "the server is gone (it died and --restarts " + strconv.Itoa(a.cfg.restarts) + " were spent, or it could not be restarted)"
		return false
	}
	return true
}

// readResources reads every listed resource (at most --max-tools) once:
// resources are read-only by definition.
func (a *auditor) readResources(ctx context.Context, rs []resource) {
	read := 0
	for _, res := range rs {
		ir := ToolReport{Name: res.URI, ReadOnly: true}
		switch {
		case read >= a.cfg.maxTools:
			ir.Skipped = "not read: --max-tools (" + strconv.Itoa(a.cfg.maxTools) + ") resources already read"
		case !a.canSend():
			ir.Skipped = "not read: " + a.rep.Budget.Exhausted
		default:
			read++
			ir.Planned, ir.Probes, ir.Audited = 1, 1, true
			a.calls++
			r := a.sess.request(ctx, "resources/read", marshal(map[string]string{"uri": res.URI}))
			ir.Results = append(a.judgeItem("read", res.URI, "contents", r), a.afterProbe(ctx, res.URI, "read"))
			for i := range ir.Results {
				ir.Results[i].Tool, ir.Results[i].Item = "", res.URI
			}
		}
		a.rep.ResourceReads = append(a.rep.ResourceReads, ir)
	}
}

// getPrompts fetches every listed prompt (at most --max-tools) once, each
// argument the prompt lists set to "mcpwrap-audit".
func (a *auditor) getPrompts(ctx context.Context, ps []prompt) {
	fetched := 0
	for _, p := range ps {
		ir := ToolReport{Name: p.Name, ReadOnly: true}
		switch {
		case fetched >= a.cfg.maxTools:
			ir.Skipped = "not fetched: --max-tools (" + strconv.Itoa(a.cfg.maxTools) + ") prompts already fetched"
		case !a.canSend():
			ir.Skipped = "not fetched: " + a.rep.Budget.Exhausted
		default:
			args := map[string]string{}
			for _, arg := range p.Arguments {
				args[arg.Name] = "mcpwrap-audit"
			}
			fetched++
			ir.Planned, ir.Probes, ir.Audited = 1, 1, true
			a.calls++
			r := a.sess.request(ctx, "prompts/get", marshal(map[string]any{"name": p.Name, "arguments": args}))
			ir.Results = append(a.judgeItem("get", p.Name, "messages", r), a.afterProbe(ctx, p.Name, "get"))
			for i := range ir.Results {
				ir.Results[i].Tool, ir.Results[i].Item = "", p.Name
			}
		}
		a.rep.PromptGets = append(a.rep.PromptGets, ir)
	}
}

func slicesIndexTool(ts []ToolReport, name string) int {
	for i, t := range ts {
		if t.Name == name {
			return i
		}
	}
	return -1
}

func target(cfg config) string {
	if cfg.url != "" {
		return cfg.url
	}
	return strings.Join(cfg.command, " ")
}

// selectTools picks the tools to call: read-only ones by default, the named
// ones with --tools, all with --all-tools; at most --max-tools.
func (a *auditor) selectTools(tools []tool) []tool {
	var sel []tool
	notRO := 0
	for _, t := range tools {
		if !t.readOnly() {
			notRO++
		}
	}
	switch {
	case a.cfg.allTools:
		a.rep.Scope = "every listed tool (--all-tools), those not annotated read-only included: they were called with invalid and hostile arguments"
	case len(a.cfg.tools) > 0:
		a.rep.Scope = "the tools named by --tools (" + strings.Join(a.cfg.tools, ", ") + "), read-only or not; --all-tools calls every tool"
	case notRO > 0:
		a.rep.Scope = "tools annotated readOnlyHint only, because the probes may run a handler; " + strconv.Itoa(notRO) + " of " + strconv.Itoa(len(tools)) +
			" listed tools are not, and were not called: --all-tools calls every tool, --tools a,b the ones you name"
	default:
		a.rep.Scope = "tools annotated readOnlyHint only (the default; every listed tool is); --all-tools calls every tool"
	}
	for _, t := range tools {
		tr := ToolReport{Name: t.Name, ReadOnly: t.readOnly()}
		want := a.cfg.allTools || slicesIndex(a.cfg.tools, t.Name) >= 0 || (len(a.cfg.tools) == 0 && t.readOnly())
		switch {
		case !want && len(a.cfg.tools) > 0:
			tr.Skipped = "not named by --tools"
		case !want:
			tr.Skipped = "not annotated readOnlyHint (--all-tools, or --tools " + t.Name + ", calls it)"
		case len(sel) >= a.cfg.maxTools:
			tr.Skipped = "--max-tools (" + strconv.Itoa(a.cfg.maxTools) + ") tools already in scope"
		default:
			sel = append(sel, t)
		}
		a.rep.Tools = append(a.rep.Tools, tr)
	}
	for _, n := range a.cfg.tools {
		if slicesIndexTool(a.rep.Tools, n) < 0 {
			a.rep.Notes = append(a.rep.Notes, "--tools names "+strconv.Quote(n)+", which the server does not list")
		}
	}
	return sel
}

// serverProbes are the probes of the server as a whole: an unknown tool, a
// burst of concurrent calls, a call cancelled mid-flight.
func (a *auditor) serverProbes(ctx context.Context, invalid, valid *probe) {
	add := func(rs ...Result) {
		for i := range rs {
			rs[i].Tool = ""
		}
		a.rep.ServerChecks = append(a.rep.ServerChecks, rs...)
	}
	if a.sess == nil {
		return
	}
	// unknown tool
	if ok, why := a.budgetLeft(); ok {
		p := unknownToolProbe()
		r := a.call(ctx, p)
		add(a.judge(p, r)...)
		add(a.afterProbe(ctx, "", p.name))
	} else {
		a.rep.Budget.Exhausted = why
	}
	// unknown resource and prompt, when the server offers them: a JSON-RPC
	// error with a defined code (there is no isError for these).
	for _, q := range []struct{ cap, probe, method, params string }{
		{"resources", "unknown_resource", "resources/read", `{"uri":"mcpwrap-audit://no/such/resource"}`},
		{"prompts", "unknown_prompt", "prompts/get", `{"name":"mcpwrap_audit_no_such_prompt"}`},
	} {
		if _, ok := a.sess.caps[q.cap]; !ok || a.sess == nil {
			continue
		}
		if ok, _ := a.budgetLeft(); !ok {
			break
		}
		a.calls++
		r := a.sess.request(ctx, q.method, []byte(q.params))
		add(a.judgeRPC(q.probe, r)...)
		add(a.afterProbe(ctx, "", q.probe))
		if a.sess == nil {
			return
		}
	}
	// burst
	if a.sess == nil {
		return
	}
	bp := unknownToolProbe()
	if invalid != nil {
		bp = *invalid
	}
	n := a.cfg.burst
	if left := a.cfg.maxCalls - a.calls; left < n {
		n = left
	}
	if ok, why := a.budgetLeft(); ok && n > 0 {
		a.calls += n
		rs := make([]response, n)
		var wg sync.WaitGroup
		start := time.Now()
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				rs[i] = a.sess.request(ctx, "tools/call", callParams(bp))
			}()
		}
		wg.Wait()
		took := time.Since(start)
		name := "burst"
		bad, slowest := 0, time.Duration(0)
		example := ""
		for _, r := range rs {
			for _, res := range a.judge(bp, r) {
				if res.Check == checkToolError && res.Status == Fail {
					bad++
					if example == "" {
						example = res.Detail
					}
				}
			}
			slowest = max(slowest, r.elapsed)
		}
		res := Result{Probe: name, Check: checkToolError, Status: Pass,
			Detail: strconv.Itoa(n) + " concurrent " + bp.name + " calls on " + strconv.Quote(bp.tool) + " answered in " + took.Round(time.Millisecond).String()}
		if bad > 0 {
			res.Status = Fail
			res.Detail = strconv.Itoa(bad) + " of " + strconv.Itoa(n) + " concurrent calls not answered properly, e.g. " + example
		}
		add(res)
		tr := Result{Probe: name, Check: checkTime, Status: Pass}
		if slowest > a.cfg.slow {
			tr.Status, tr.Detail = Fail, "slowest of the burst "+slowest.Round(time.Millisecond).String()
		}
		add(tr, a.afterProbe(ctx, "", name))
	} else if !ok {
		a.rep.Budget.Exhausted = why
	}
	// cancelled mid-flight
	if a.sess == nil {
		return
	}
	cp := unknownToolProbe()
	if valid != nil {
		cp = *valid
	}
	if ok, why := a.budgetLeft(); ok {
		a.calls++
		a.cancelProbe(ctx, cp, add)
	} else {
		a.rep.Budget.Exhausted = why
	}
}

// cancelProbe sends a call, cancels it at once with notifications/cancelled
// (and, over HTTP, by closing the request), then expects the server to
// answer the next request.
func (a *auditor) cancelProbe(ctx context.Context, p probe, add func(...Result)) {
	cctx, cancel := context.WithCancel(ctx)
	id := a.sess.next.Add(1)
	done := make(chan response, 1)
	go func() {
		c2, c2cancel := context.WithTimeout(cctx, a.cfg.callTimeout)
		defer c2cancel()
		done <- a.sess.t.roundTrip(c2, strconv.FormatInt(id, 10), requestMessage(id, "tools/call", callParams(p)))
	}()
	time.Sleep(5 * time.Millisecond)
	err := a.sess.notify(ctx, "notifications/cancelled", []byte(`{"requestId":`+strconv.FormatInt(id, 10)+`,"reason":"mcpwrap audit: cancelled mid-flight"}`))
	if _, isHTTP := a.sess.t.(*httpTransport); isHTTP {
		cancel()
	} else {
		// Over stdio the answer may come or not (the server should not
		// send one); wait briefly, then stop waiting.
		time.AfterFunc(500*time.Millisecond, cancel)
	}
	<-done
	cancel()
	res := Result{Probe: "cancel", Check: checkToolError, Status: Pass, Detail: "call " + strconv.Quote(p.tool) + " cancelled with notifications/cancelled"}
	if err != nil {
		res.Status, res.Detail = Fail, "notifications/cancelled was refused: "+err.Error()
	}
	add(res)
	start := time.Now()
	alive := a.afterProbe(ctx, "", "cancel")
	add(alive)
	t := Result{Probe: "cancel", Check: checkTime, Status: Pass}
	if el := time.Since(start); el > a.cfg.slow {
		t.Status, t.Detail = Fail, "the next request took "+el.Round(time.Millisecond).String()
	}
	add(t)
}

// freshSession opens a new session with mcp-go's own client (a new process
// over stdio) and lists the tools: the server still serves newcomers.
func (a *auditor) freshSession(ctx context.Context, want int) Result {
	res := Result{Probe: "fresh_session", Check: checkSession, Status: Pass}
	ctx, cancel := context.WithTimeout(ctx, a.cfg.callTimeout)
	defer cancel()
	var c *client.Client
	var err error
	if a.cfg.url != "" {
		u, _ := url.Parse(a.cfg.url)
		hdr := map[string]string{}
		for _, kv := range a.cfg.headers {
			k, v, _ := strings.Cut(kv, ":")
			hdr[strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
		c, err = client.NewStreamableHttpClient(a.cfg.url, mcptransport.WithHTTPBasicClient(guardedClient(u)), mcptransport.WithHTTPHeaders(hdr))
		if err == nil {
			err = c.Start(ctx)
		}
	} else {
		c, err = client.NewStdioMCPClientWithOptions(a.cfg.command[0], nil, a.cfg.command[1:], mcptransport.WithCommandStderrWriter(io.Discard))
	}
	if err != nil {
		res.Status, res.Detail = Fail, "mcp-go's client could not connect: "+err.Error()
		return res
	}
	defer c.Close()
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = requestedProtocol
	init.Params.ClientInfo = mcp.Implementation{Name: "mcpwrap-audit", Version: "1"}
	if _, err := c.Initialize(ctx, init); err != nil {
		res.Status, res.Detail = Fail, "initialize with mcp-go's client: "+clip(err.Error(), 200)
		return res
	}
	lt, err := c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		res.Status, res.Detail = Fail, "tools/list with mcp-go's client: "+clip(err.Error(), 200)
		return res
	}
	res.Detail = "mcp-go's client initialized a new session and listed " + strconv.Itoa(len(lt.Tools)) + " tools"
	if len(lt.Tools) != want && lt.NextCursor == "" {
		res.Status = Warn
		res.Detail += " (the first session listed " + strconv.Itoa(want) + ")"
	}
	return res
}
