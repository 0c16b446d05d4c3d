package cedarauthz

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"iter"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/cedar-policy/cedar-go"
	"github.com/cedar-policy/cedar-go/types"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/wrap/authz"
)

// Policies is a Cedar policy set read from a file, which it reloads when
// the file changes. Its Check is an authz.Policy's Check. It is safe for
// concurrent use: a Check evaluates the set that was in force when it
// began, and a reload swaps in a new set atomically, never a half-loaded
// one.
type Policies struct {
	path string
	cfg  config
	set  atomic.Pointer[policySet]

	mu   sync.Mutex // one reload at a time
	seen fileStat   // the file as the last reload (good or bad) found it

	stop      chan struct{}
	done      chan struct{}
	closeOnce sync.Once
}

// policySet is one parse of the file, in the file's order.
type policySet struct {
	ids      []cedar.PolicyID
	policies []*cedar.Policy
	forbid   map[cedar.PolicyID]bool
	sum      [sha256.Size]byte
	// arguments says a policy may read the arguments (resource.arguments,
	// context.argumentsSkipped); without one, calls do not pay for their
	// conversion.
	arguments bool
}

// All implements cedar.PolicyIterator.
func (s *policySet) All() iter.Seq2[cedar.PolicyID, *cedar.Policy] {
	return func(yield func(cedar.PolicyID, *cedar.Policy) bool) {
		for i, p := range s.policies {
			if !yield(s.ids[i], p) {
				return
			}
		}
	}
}

// parse reads Cedar's text: a policy is named by its @id annotation, or
// "policy<n>" (its index in the file, from 0) without one.
func parse(path string, src []byte) (*policySet, error) {
	list, err := cedar.NewPolicyListFromBytes(path, src)
	if err != nil {
		return nil, err
	}
	s := &policySet{forbid: map[cedar.PolicyID]bool{}, sum: sha256.Sum256(src), arguments: readsArguments(src)}
	seen := make(map[cedar.PolicyID]bool, len(list))
	for i, p := range list {
		id := policyID(p, i)
		if seen[id] {
			return nil, fmt.Errorf("%s: two policies have the id %q", position(p.Position()), id)
		}
		seen[id] = true
		s.ids = append(s.ids, id)
		s.policies = append(s.policies, p)
		if p.Effect() == cedar.Forbid {
			s.forbid[id] = true
		}
	}
	return s, nil
}

// policyID is the policy's @id annotation, or "policy<i>" for the i-th
// policy of the file without one.
func policyID(p *cedar.Policy, i int) cedar.PolicyID {
	if a, ok := p.Annotations()["id"]; ok && a != "" {
		return cedar.PolicyID(a)
	}
	return cedar.PolicyID("policy" + strconv.Itoa(i))
}

// readsArguments reports whether a policy of src may read the arguments.
// Cedar names an attribute only by a literal, so one that reads them has
// the word in its text, unless it spells it with an escape
// (resource["\u{61}rguments"]): then the arguments are converted all the
// same.
func readsArguments(src []byte) bool {
	return bytes.Contains(src, []byte("arguments")) || bytes.Contains(src, []byte(`\u`))
}

// Load reads the Cedar policies in the file at path and, unless
// WithInterval says otherwise, watches it: a change that parses replaces
// the set in force; one that does not (or a file that cannot be read) is
// logged and leaves the last good set in force. A file that does not parse
// at first is Load's error. Close ends the watching.
func Load(path string, opts ...Option) (*Policies, error) {
	p := &Policies{path: path, cfg: newConfig(opts)}
	st, src, err := read(path)
	if err != nil {
		return nil, err
	}
	s, err := parse(path, src)
	if err != nil {
		return nil, fmt.Errorf("cedarauthz: %w", err)
	}
	p.set.Store(s)
	p.seen = st
	p.cfg.logger.LogAttrs(context.Background(), slog.LevelInfo, "cedarauthz: policies loaded",
		slog.String("path", path), slog.Int("policies", len(s.ids)), slog.Duration("interval", max(p.cfg.interval, 0)))
	if p.cfg.interval > 0 {
		p.stop, p.done = make(chan struct{}), make(chan struct{})
		go p.watch()
	}
	return p, nil
}

// Reload reads the file now, as the watcher does when it sees a change:
// on success the new set is in force when Reload returns; on failure the
// error is logged and returned, and the last good set stays in force. A
// file whose content did not change is not parsed again.
func (p *Policies) Reload() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	st, src, err := read(p.path)
	if err != nil {
		if fi, serr := os.Stat(p.path); serr == nil {
			p.seen = fileStat{fi} // a file that cannot be opened is not tried again until it changes
		}
		p.cfg.logger.LogAttrs(context.Background(), slog.LevelError, "cedarauthz: cannot read the policy file; the last good policies stay in force",
			slog.String("path", p.path), slog.String("error", err.Error()))
		return err
	}
	p.seen = st
	if sha256.Sum256(src) == p.set.Load().sum {
		return nil
	}
	s, err := parse(p.path, src)
	if err != nil {
		p.cfg.logger.LogAttrs(context.Background(), slog.LevelError, "cedarauthz: the policy file does not parse; the last good policies stay in force",
			slog.String("path", p.path), slog.String("error", err.Error()), slog.Int("policies", len(p.set.Load().ids)))
		return fmt.Errorf("cedarauthz: %w", err)
	}
	p.set.Store(s)
	p.cfg.logger.LogAttrs(context.Background(), slog.LevelInfo, "cedarauthz: policies loaded",
		slog.String("path", p.path), slog.Int("policies", len(s.ids)))
	return nil
}

// Close ends the watching of the file and waits for its goroutine to
// return. Check keeps deciding with the last set loaded. Close may be
// called more than once; it always returns nil.
func (p *Policies) Close() error {
	p.closeOnce.Do(func() {
		if p.stop != nil {
			close(p.stop)
			<-p.done
		}
	})
	return nil
}

// Len returns how many policies are in force.
func (p *Policies) Len() int { return len(p.set.Load().ids) }

// Check decides r for c with the policies in force, with Cedar's
// semantics: denied unless a permit matches and no forbid does. Cedar
// skips a policy whose conditions fail to evaluate (an absent attribute, a
// type that does not match); Check counts such a failure against access on
// a call (a forbid that failed denies) and for showing in a list
// (r.Listing: a permit that failed shows the entry, unless a forbid
// matched), since what fails in a list is most often what reads the
// arguments, which only the call has and by which it is decided. A refusal
// is permission_denied, naming the action and the resource; the policies
// that matched and those that failed are its cause, for the log, never for
// the model, and no claim's value is in either. Check is safe for
// concurrent use.
func (p *Policies) Check(ctx context.Context, c authz.Caller, r authz.Request) error {
	a, ok := actions[r.Method]
	if !ok {
		return errs.Newf(errs.PermissionDenied, "no policy permits %s on %s", r.Method, r.Name)
	}
	s := p.set.Load()
	if r.Listing || !s.arguments {
		r.Arguments = nil
	}
	res, skipped := resourceOf(a.typ, r)
	ents := &entities{principal: principalOf(c), resource: res}
	req := cedar.Request{Principal: ents.principal.UID, Action: a.uid, Resource: res.UID, Context: contextOf(r.Listing, skipped)}
	decision, diag := cedar.Authorize(s, ents, req)
	forbidden := decision == cedar.Deny && len(diag.Reasons) > 0 // Cedar's reasons for a Deny are the forbids that matched
	if settle(decision, forbidden, diag, r.Listing, s) == cedar.Allow {
		if skipped != "" {
			p.logSkipped(ctx, r.Name, skipped)
		}
		return nil
	}
	return refusal(a.uid.ID, a.noun, r.Name, denial(forbidden, diag, s), skipped, diag)
}

// logSkipped notes at debug level that name was allowed without its
// arguments being evaluated, and why.
func (p *Policies) logSkipped(ctx context.Context, name, why string) {
	if p.cfg.logger.Enabled(ctx, slog.LevelDebug) {
		p.cfg.logger.LogAttrs(ctx, slog.LevelDebug, "cedarauthz: allowed without evaluating the arguments",
			slog.String("name", name), slog.String("why", why))
	}
}

// denial says why a request was denied: a forbid matched, one failed to
// evaluate, or no permit matched.
func denial(forbidden bool, diag cedar.Diagnostic, s *policySet) string {
	switch {
	case forbidden:
		return "a policy forbids it"
	case failedForbid(diag, s):
		return "a policy that forbids it could not be evaluated"
	}
	return "no policy permits it"
}

func failedForbid(diag cedar.Diagnostic, s *policySet) bool {
	for _, e := range diag.Errors {
		if s.forbid[e.PolicyID] {
			return true
		}
	}
	return false
}

// settle decides a request some policies failed to evaluate, which Cedar
// skips (without failures, Cedar's decision stands). On a call a failure counts against access: a forbid that failed
// denies. In a list, which shows a tool without its arguments (what most
// failures read), a failure counts for showing it: a permit that failed
// shows it, unless a forbid matched; the call is then decided with the
// arguments.
func settle(decision cedar.Decision, forbidden bool, diag cedar.Diagnostic, listing bool, s *policySet) cedar.Decision {
	switch {
	case !listing && failedForbid(diag, s):
		return cedar.Deny
	case !listing, decision == cedar.Allow, forbidden:
		return decision
	}
	for _, e := range diag.Errors {
		if !s.forbid[e.PolicyID] {
			return cedar.Allow // a permit that failed without the arguments
		}
	}
	return decision
}

// refusal is the answer the model reads, with the diagnostic as its cause.
func refusal(action types.String, noun, name, why, skipped string, diag cedar.Diagnostic) error {
	msg := fmt.Sprintf("%s on %s %q is denied: %s", action, noun, name, why)
	if skipped != "" {
		msg += " (its arguments were not evaluated: " + skipped + ")"
	}
	return errs.Wrap(errs.PermissionDenied, diagnosis(diag), msg)
}

// diagnosis names the policies that matched (the forbids of a Deny, the
// permits of an Allow that a failed forbid overruled) and those that failed to
// evaluate, by id and position: not Cedar's error messages, which can
// quote a value.
func diagnosis(diag cedar.Diagnostic) error {
	var b strings.Builder
	for _, r := range diag.Reasons {
		fmt.Fprintf(&b, "; matched %s (%s)", r.PolicyID, position(r.Position))
	}
	for _, e := range diag.Errors {
		fmt.Fprintf(&b, "; %s (%s) could not be evaluated", e.PolicyID, position(e.Position))
	}
	if b.Len() == 0 {
		return errors.New("cedar: no policy matched")
	}
	return errors.New("cedar: " + b.String()[2:])
}

func position(p cedar.Position) string {
	return p.Filename + ":" + strconv.Itoa(p.Line) + ":" + strconv.Itoa(p.Column)
}
