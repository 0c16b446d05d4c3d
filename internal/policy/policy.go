// Package policy evaluates an authz.Policy: it is what the chain of package
// wrap and the SDK adapters' list filters share, so that a tool is shown
// exactly when a call to it would be allowed. A policy is evaluated from
// data read once; Decide reads no lock but the registrations' map.
package policy

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/internal/obs"
	"github.com/mcpwrap/mcpwrap/wrap/authz"
)

// The methods a policy decides on.
const (
	ToolsCall     = "tools/call"
	ResourcesRead = "resources/read"
	PromptsGet    = "prompts/get"
)

// Verdict is what a policy made of a request.
type Verdict uint8

// The verdicts. Their names are the log line's authz.decision.
const (
	// Allowed: the call runs.
	Allowed Verdict = iota
	// Denied: the call is answered permission_denied (Decision.Err).
	Denied
	// Hidden: the caller may not know of the tool, resource or prompt; it
	// is left out of lists and a call is answered like one to an unknown
	// name.
	Hidden
)

var verdictNames = [...]string{Allowed: "allowed", Denied: "denied", Hidden: "hidden"}

func (v Verdict) String() string { return verdictNames[v] }

// Reasons a request was not allowed, for the log line's authz.reason and
// the denial metric.
const (
	ReasonUndeclared = "undeclared"  // the policy names nothing for it
	ReasonScope      = "scope"       // the caller lacks a required scope
	ReasonReadOnly   = "read_only"   // read-only mode, and the tool is not
	ReasonCheck      = "check"       // Policy.Check said no
	ReasonCheckPanic = "check_panic" // Policy.Check panicked
	ReasonDeclined   = "declined"    // the user declined the confirmation
	ReasonNoConfirm  = "unconfirmable"
)

// Decision is the outcome of Decide.
type Decision struct {
	Verdict Verdict
	// Reason says why a request was not allowed ("" when it was).
	Reason string
	// Required are the scopes the request needs; Missing those of them
	// the caller lacks.
	Required, Missing []string
	// Err is the answer of a Denied call.
	Err *errs.Error
	// Confirm says an allowed call must be confirmed by the user first.
	Confirm bool
}

// HiddenFromAll reports whether d hides the request from every caller:
// the policy does not declare it, or read-only mode hides it. Warn says
// so to the operator.
func (d Decision) HiddenFromAll() bool {
	return d.Reason == ReasonUndeclared || d.Reason == ReasonReadOnly
}

// Engine is an evaluated Policy. It is safe for concurrent use.
type Engine struct {
	p         authz.Policy
	tools     map[string][]string
	prompts   map[string][]string
	resources map[string][]string
	prefixes  []prefix   // resource keys ending in "*", longest first
	templates []template // resource keys that are URI templates
	public    map[string]bool
	pubPrefix []string
	pubTmpl   []template // public names that are URI templates
	confirm   map[string]bool
	// declared holds what tools declared at registration (wrap.WithScopes):
	// a map never changed once stored, replaced whole under mu, so that a
	// decision reads it without a lock.
	mu       sync.Mutex
	declared atomic.Pointer[map[string][]string]
	// warned remembers the undeclared names already logged, at most
	// maxWarned of them (warnedN).
	warned  sync.Map
	warnedN atomic.Int32
}

// maxWarned bounds the undeclared names warned of: they are registered
// names, but a server may register many (per session, over its life).
const maxWarned = 1000

type prefix struct {
	p      string
	scopes []string
}

// New evaluates p. It copies what it keeps, so that a later change to the
// caller's maps has no effect.
func New(p authz.Policy) *Engine {
	e := &Engine{p: p, tools: copyMap(p.Tools), prompts: copyMap(p.Prompts), resources: map[string][]string{},
		public: map[string]bool{}, confirm: map[string]bool{}}
	e.addResources(p.Resources)
	e.addPublic(p.Public)
	for _, n := range p.Confirm.Tools {
		e.confirm[n] = true
	}
	e.p.Local = slices.Clone(p.Local)
	return e
}

// addResources adds the scopes of resources: a name ending in * is a
// prefix (the longest is tried first), a template is matched as one.
func (e *Engine) addResources(resources map[string][]string) {
	for k, v := range resources {
		if strings.HasSuffix(k, "*") {
			e.prefixes = append(e.prefixes, prefix{strings.TrimSuffix(k, "*"), slices.Clone(v)})
			continue
		}
		// A template's own text stays an exact key too: that is how its
		// entry in resources/templates/list and a completion of it are
		// named.
		e.resources[k] = slices.Clone(v)
		if t, ok := compileTemplate(k, v); ok {
			e.templates = append(e.templates, t)
		}
	}
	slices.SortFunc(e.prefixes, func(a, b prefix) int { return len(b.p) - len(a.p) })
}

// addPublic adds the names anyone may use: exact names, prefixes (ending
// in *) and templates.
func (e *Engine) addPublic(public []string) {
	for _, n := range public {
		if strings.HasSuffix(n, "*") {
			e.pubPrefix = append(e.pubPrefix, strings.TrimSuffix(n, "*"))
			continue
		}
		e.public[n] = true
		if t, ok := compileTemplate(n, nil); ok {
			e.pubTmpl = append(e.pubTmpl, t)
		}
	}
}

func copyMap(m map[string][]string) map[string][]string {
	out := make(map[string][]string, len(m))
	for k, v := range m {
		out[k] = slices.Clone(v)
	}
	return out
}

// Declare adds scopes that the named tool requires, as its registration
// said (wrap.WithScopes). A tool declared with no scopes is declared all
// the same: it needs none.
func (e *Engine) Declare(tool string, scopes []string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	m := map[string][]string{}
	if old := e.declared.Load(); old != nil {
		m = maps.Clone(*old)
	}
	// What the policy's map says is merged in here, once, so that a
	// decision reads one slice and allocates nothing.
	cur, ok := m[tool]
	if !ok {
		cur = e.tools[tool]
	}
	m[tool] = union(cur, scopes)
	if m[tool] == nil {
		m[tool] = []string{}
	}
	e.declared.Store(&m)
}

// Required returns the scopes a request of method for name needs, and
// whether the policy declares it at all (a public name needs none).
func (e *Engine) Required(method, name string) ([]string, bool) {
	if s, ok := e.scopesOf(method, name); ok {
		return s, true
	}
	return nil, e.isPublic(name)
}

// scopesOf returns the scopes the policy declares for method's name, and
// whether it declares any (a public resource template declares none).
func (e *Engine) scopesOf(method, name string) ([]string, bool) {
	switch method {
	case ToolsCall:
		if m := e.declared.Load(); m != nil {
			if d, found := (*m)[name]; found {
				return d, true
			}
		}
		s, ok := e.tools[name]
		return s, ok
	case PromptsGet:
		s, ok := e.prompts[name]
		return s, ok
	case ResourcesRead:
		return e.resourceScopes(name)
	}
	return nil, false
}

// resourceScopes is scopesOf for a resource URI: its own scopes, a
// template's, a prefix's, or none for a public template.
func (e *Engine) resourceScopes(uri string) ([]string, bool) {
	if s, ok := e.resources[uri]; ok {
		return s, true
	}
	if s, ok := templateScopes(e.templates, uri); ok {
		return s, true
	}
	for _, p := range e.prefixes {
		if strings.HasPrefix(uri, p.p) {
			return p.scopes, true
		}
	}
	_, ok := templateScopes(e.pubTmpl, uri)
	return nil, ok
}

// isPublic reports whether the policy makes name public, by itself or by a
// prefix.
func (e *Engine) isPublic(name string) bool {
	if e.public[name] {
		return true
	}
	for _, p := range e.pubPrefix {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

func union(a, b []string) []string {
	if len(a) == 0 {
		return slices.Clone(b)
	}
	out := slices.Clone(a)
	for _, s := range b {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// Granted returns the scopes c holds: over stdio, the policy's Local.
func (e *Engine) Granted(c authz.Caller) []string {
	if c.Local {
		return e.p.Local
	}
	return c.Scopes
}

// Decide says whether c may make request r. It never panics: a Check that
// panics hides, in a list and in a call alike (ReasonCheckPanic), so that
// both SDKs answer the call as one to an unknown name: mcp-go asks its list
// filter about a tool or prompt before the call, where hiding is the only
// answer there is.
func (e *Engine) Decide(ctx context.Context, c authz.Caller, r authz.Request) (d Decision) {
	required, declared := e.Required(r.Method, r.Name)
	d.Required = required
	switch {
	case !declared:
		d.Verdict, d.Reason = Hidden, ReasonUndeclared
		return d
	case e.readOnlyHides(r):
		d.Verdict, d.Reason = Hidden, ReasonReadOnly
		return d
	}
	granted := authz.Caller{Scopes: e.Granted(c)}
	if d.Missing = granted.Missing(required); len(d.Missing) > 0 {
		e.refuseScope(&d, r, c.Local)
		return d
	}
	if e.p.Check != nil {
		if err := e.check(ctx, c, r); err != nil {
			refuseCheck(&d, r, err)
			return d
		}
	}
	if r.Method == ToolsCall && !r.Listing {
		d.Confirm = e.confirm[r.Name] || e.p.Confirm.Destructive && destructive(r.Annotations)
	}
	return d
}

// readOnlyHides reports whether read-only mode hides r: a call of a tool
// not known to be annotated readOnlyHint.
func (e *Engine) readOnlyHides(r authz.Request) bool {
	return e.p.ReadOnly && r.Method == ToolsCall && !(r.Annotations.Known && r.Annotations.ReadOnly)
}

// refuseScope decides a request whose caller lacks d.Missing: hidden, or
// with step-up a call denied with the scopes to ask for (a list entry
// stays, so that the caller learns the name).
func (e *Engine) refuseScope(d *Decision, r authz.Request, local bool) {
	d.Reason = ReasonScope
	switch {
	case !e.p.StepUp:
		d.Verdict = Hidden
	case !r.Listing:
		d.Verdict = Denied
		d.Err = errs.New(errs.PermissionDenied, missingMessage(r, d.Missing, local))
	}
}

// refuseCheck decides a request the policy's Check refused with err: a
// list entry is hidden, a call denied with Check's error; a Check that
// panicked hides either.
func refuseCheck(d *Decision, r authz.Request, err error) {
	switch {
	case err == errCheckPanic:
		d.Verdict, d.Reason = Hidden, ReasonCheckPanic
	case r.Listing:
		d.Verdict, d.Reason = Hidden, ReasonCheck
	default:
		d.Verdict, d.Reason, d.Err = Denied, ReasonCheck, checkError(err)
	}
}

// destructive reads MCP's defaults: destructiveHint is true unless said
// otherwise, and means nothing for a read-only tool; a tool whose
// definition is not known may destroy.
func destructive(a authz.Annotations) bool {
	return !a.Known || !a.ReadOnly && a.Destructive
}

func (e *Engine) check(ctx context.Context, c authz.Caller, r authz.Request) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = errCheckPanic
		}
	}()
	return e.p.Check(ctx, c, r)
}

// errCheckPanic is what check makes of a Check that panicked.
var errCheckPanic = errors.New("policy: Check panicked")

// checkError is what the model reads of a Check's refusal: an errs error
// as it is, anything else as permission_denied in its own words.
func checkError(err error) *errs.Error {
	if e := errs.From(err); e.Code() != errs.Internal {
		return e
	}
	return errs.Wrap(errs.PermissionDenied, err, err.Error())
}

func missingMessage(r authz.Request, missing []string, local bool) string {
	what := "calling " + r.Name
	switch r.Method {
	case ResourcesRead:
		what = "reading " + r.Name
	case PromptsGet:
		what = "getting prompt " + r.Name
	}
	noun := "scope"
	if len(missing) > 1 {
		noun = "scopes"
	}
	if local {
		return fmt.Sprintf("%s needs the %s %s, which this server does not grant over stdio", what, noun, strings.Join(missing, " "))
	}
	return fmt.Sprintf("%s needs the %s %s, which the access token does not grant", what, noun, strings.Join(missing, " "))
}

// Subject is how the log line and span name c: its subject, or the first
// 16 hex digits of its SHA-256 when the policy says HashSubject; "local"
// for the process owner without one, "" for an anonymous caller.
func (e *Engine) Subject(c authz.Caller) string {
	s := c.Subject
	if s == "" && c.Local {
		return "local"
	}
	if s == "" || !e.p.HashSubject {
		return s
	}
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:8])
}

// Confirmation returns the confirmation policy.
func (e *Engine) Confirmation() authz.Confirm { return e.p.Confirm }

// Warn logs, once per name, a warning that r's method on r's name is
// denied to every caller whatever its token: no policy declares it, or
// read-only mode hides a tool not annotated readOnlyHint (a server that
// annotates nothing would otherwise lose every tool in silence). r.Name is
// a name the server registered (a tool's or prompt's name, a resource's
// URI, a resource template's URI template; "" for a template the adapter
// cannot name), never one a request made up, so that the warnings are
// bounded by what the server registered; at most maxWarned names are
// remembered all the same. It is called at start-up for what a server
// registered before it was attached, at a list, and at the first request
// for the rest.
func (e *Engine) Warn(ctx context.Context, o *obs.Observer, r authz.Request) {
	if o == nil {
		return
	}
	if why := e.deniedToAll(r); why != "" && e.firstWarning(ctx, o, r.Method+" "+r.Name) {
		o.Log(ctx, slog.LevelWarn, "authorization: "+why)
	}
}

// deniedToAll says why r is denied to every caller, or "" when it is not.
func (e *Engine) deniedToAll(r authz.Request) string {
	switch _, declared := e.Required(r.Method, r.Name); {
	case r.Method == ResourcesRead && r.Name == "":
		return "no policy declares resources/read of the URIs a resource template serves; they are denied to every caller " +
			"(declare the template's URI template or a prefix in the policy, or name it in Policy.Public)"
	case !declared:
		return "no policy declares " + r.Method + " " + r.Name +
			"; it is denied to every caller (declare it in the policy, or name it in Policy.Public)"
	case e.readOnlyHides(r):
		return "read-only mode hides tool " + r.Name + " from every caller: it is not annotated readOnlyHint"
	}
	return ""
}

// firstWarning reports whether key is warned about for the first time;
// past maxWarned keys it says so once, and no key is warned about.
func (e *Engine) firstWarning(ctx context.Context, o *obs.Observer, key string) bool {
	if _, seen := e.warned.Load(key); seen {
		return false
	}
	if n := e.warnedN.Add(1); n > maxWarned {
		if n == maxWarned+1 {
			o.Log(ctx, slog.LevelWarn, "authorization: more names than "+strconv.Itoa(maxWarned)+" are denied to every caller; the next are not named")
		}
		return false
	}
	_, seen := e.warned.LoadOrStore(key, true)
	return !seen
}

// Checks reports whether the policy has a Check, which reads the
// arguments.
func (e *Engine) Checks() bool { return e.p.Check != nil }

// maxSubjectBytes caps the subject in the log line and span.
const maxSubjectBytes = 256

// Audit is what the log line, the span and the denial metric say of d, a
// decision for c.
func (e *Engine) Audit(d Decision, c authz.Caller) *obs.Authz {
	sub := e.Subject(c)
	if len(sub) > maxSubjectBytes {
		sub = sub[:maxSubjectBytes]
	}
	return &obs.Authz{Decision: d.Verdict.String(), Reason: d.Reason, Subject: sub,
		Required: d.Required, Granted: auditGranted(e.Granted(c), d.Required), Missing: d.Missing}
}

// maxGrantedScopes bounds the granted scopes the log line and span list: a
// token may carry thousands, which made every line of its calls hundreds
// of kilobytes.
const maxGrantedScopes = 32

// auditGranted is granted as the audit lists it: whole when short, else
// the required scopes the caller holds, then others up to
// maxGrantedScopes, then how many were left out.
func auditGranted(granted, required []string) []string {
	if len(granted) <= maxGrantedScopes {
		return granted
	}
	out := make([]string, 0, maxGrantedScopes+1)
	add := func(s string) {
		if len(out) < maxGrantedScopes && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	for _, s := range required {
		if slices.Contains(granted, s) {
			add(s)
		}
	}
	for _, s := range granted {
		add(s)
	}
	return append(out, "…+"+strconv.Itoa(len(granted)-len(out))+" more")
}

// Annotated reports whether decisions read a tool's annotations (read-only
// mode, confirming destructive tools, a Check, which is promised them), which
// an adapter may have to look up.
func (e *Engine) Annotated() bool { return e.p.ReadOnly || e.p.Confirm.Destructive || e.p.Check != nil }

// ProcessOwner is the caller of a request that came over no network: stdio,
// an in-process client. It presents no token; the policy grants it Local.
func ProcessOwner() authz.Caller {
	return authz.Caller{Local: true, Subject: "uid:" + strconv.Itoa(os.Getuid())}
}
