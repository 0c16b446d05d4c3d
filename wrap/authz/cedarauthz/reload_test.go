package cedarauthz_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/mcpwrap/mcpwrap/internal/logbuf"
	"github.com/mcpwrap/mcpwrap/wrap/authz"
	"github.com/mcpwrap/mcpwrap/wrap/authz/cedarauthz"
)

const (
	permitAlice = `permit (principal == MCP::Caller::"alice", action, resource);`
	permitBob   = `permit (principal == MCP::Caller::"bob", action, resource);`
)

var bob = authz.Caller{Subject: "bob"}

func allowed(p *cedarauthz.Policies, c authz.Caller) bool {
	return p.Check(context.Background(), c, authz.Request{Method: "tools/call", Name: "t", Annotations: known}) == nil
}

// eventually waits until cond holds, or fails after a while.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting until %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestReloadFollowsTheFile: a new file is in force without a restart; a
// broken one is logged and leaves the last good set in force (never
// opening access), a file that goes away too; a fixed one loads again; and
// Close ends the watcher.
func TestReloadFollowsTheFile(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	logs := &logbuf.Buffer{}
	path := filepath.Join(t.TempDir(), "policies.cedar")
	writeFile(t, path, permitAlice)
	p, err := cedarauthz.Load(path, cedarauthz.WithInterval(10*time.Millisecond), cedarauthz.WithLogger(logs.Logger()))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if !allowed(p, alice) || allowed(p, bob) {
		t.Fatal("the first file is not in force")
	}

	writeFile(t, path, permitBob)
	eventually(t, "the new file is in force", func() bool { return allowed(p, bob) && !allowed(p, alice) })

	writeFile(t, path, permitBob+"\npermit (principal, action, resource) when {") // cut short
	eventually(t, "the broken file is logged", func() bool { return strings.Contains(logs.String(), "does not parse") })
	time.Sleep(50 * time.Millisecond) // several polls: the bad file is not parsed again, nor loaded
	if !allowed(p, bob) || allowed(p, alice) {
		t.Fatal("a broken file changed the decisions")
	}
	if n := strings.Count(logs.String(), "does not parse"); n != 1 {
		t.Fatalf("the broken file was logged %d times, want once: %s", n, logs.String())
	}
	lines, err := logs.Find("level", "ERROR")
	if err != nil || len(lines) != 1 || lines[0]["path"] != path || lines[0]["policies"] != float64(1) {
		t.Fatalf("the error line: %v (%v)", lines, err)
	}

	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the missing file is logged", func() bool { return strings.Contains(logs.String(), "cannot read") })
	if !allowed(p, bob) {
		t.Fatal("a missing file changed the decisions")
	}

	writeFile(t, path, permitAlice+"\n"+permitBob)
	eventually(t, "the fixed file is in force", func() bool { return allowed(p, alice) && allowed(p, bob) })
	if p.Len() != 2 {
		t.Fatalf("%d policies in force, want 2", p.Len())
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	_ = p.Close() // twice is fine
	writeFile(t, path, permitAlice)
	time.Sleep(50 * time.Millisecond)
	if !allowed(p, bob) {
		t.Fatal("a closed Policies reloaded")
	}
}

// TestReloadInPlace: a file rewritten in place (same inode), even to the
// same size, is seen by its modification time.
func TestReloadInPlace(t *testing.T) {
	path := filepath.Join(t.TempDir(), "policies.cedar")
	if err := os.WriteFile(path, []byte(permitAlice), 0o600); err != nil {
		t.Fatal(err)
	}
	p, err := cedarauthz.Load(path, cedarauthz.WithInterval(10*time.Millisecond), cedarauthz.WithLogger((&logbuf.Buffer{}).Logger()))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	time.Sleep(20 * time.Millisecond)
	if err := os.WriteFile(path, []byte(strings.Replace(permitAlice, "alice", "bobby", 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the rewritten file is in force", func() bool { return !allowed(p, alice) })
}

// TestLoadRefusesABrokenFile: there is no last good set to keep at first,
// so Load fails instead of starting with one that allows or denies all.
func TestLoadRefusesABrokenFile(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	dir := t.TempDir()
	broken := filepath.Join(dir, "broken.cedar")
	writeFile(t, broken, "permit (principal")
	dup := filepath.Join(dir, "dup.cedar")
	writeFile(t, dup, `@id("a") permit (principal, action, resource); @id("a") forbid (principal, action, resource);`)
	for _, path := range []string{broken, dup, filepath.Join(dir, "missing.cedar")} {
		if p, err := cedarauthz.Load(path); err == nil {
			_ = p.Close()
			t.Fatalf("Load(%s) succeeded", filepath.Base(path))
		}
	}
}

// TestReload: Reload puts a change in force when it returns, and reports
// a broken file.
func TestReload(t *testing.T) {
	path := filepath.Join(t.TempDir(), "policies.cedar")
	writeFile(t, path, permitAlice)
	p, err := cedarauthz.Load(path, cedarauthz.WithInterval(0), cedarauthz.WithLogger((&logbuf.Buffer{}).Logger()))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, path, permitBob)
	if err := p.Reload(); err != nil || !allowed(p, bob) {
		t.Fatalf("Reload: %v; bob allowed %v", err, allowed(p, bob))
	}
	writeFile(t, path, "forbid (")
	if err := p.Reload(); err == nil || !allowed(p, bob) {
		t.Fatalf("Reload of a broken file: %v; bob allowed %v", err, allowed(p, bob))
	}
}
