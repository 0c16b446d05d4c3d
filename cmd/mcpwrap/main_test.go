package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strings"
	"testing"
)

// tinyServer is a real mcp-go stdio server with one finding per check it
// exercises; the module around it resolves from the module cache.
const tinyServer = `package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

func main() {
	s := server.NewMCPServer("tiny", "1")
	s.AddTool(mcp.NewTool("get"), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		fmt.Println("get called")
		if req.GetString("city", "") == "" {
			return nil, errors.New("city is required")
		}
		if req.GetString("mode", "") == "x" {
			os.Exit(1)
		}
		return mcp.NewToolResultText("ok"), nil
	})
	_ = server.ServeStdio(s)
}
`

var wantFindings = []string{
	`main.go:16:3: stdout: tool "get" writes to stdout`,
	`main.go:18:16: masked: errors.New in tool "get"`,
	`main.go:21:4: exit: tool "get" calls os.Exit`,
}

func buildTool(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "mcpwrap")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// tinyModule writes a module with server (tinyServer or a variant of it)
// whose go.mod and go.sum are derived from this repository's root module,
// which imports the same mcp-go packages: its requirement list is complete
// for the server's build and its go.sum verifies every module in it.
// Nothing is resolved (no go mod tidy, which would want the tests of
// mcp-go's own dependencies), so the test needs only what a fresh machine
// gets from the module proxy, and no checksum database.
func tinyModule(t *testing.T, server string) string {
	t.Helper()
	dir := t.TempDir()
	mod, err := os.ReadFile("../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	sum, err := os.ReadFile("../../go.sum")
	if err != nil {
		t.Fatal(err)
	}
	rootLine := regexp.MustCompile(`(?m)^module .*$`)
	if !rootLine.Match(mod) || !strings.Contains(string(mod), "github.com/mark3labs/mcp-go ") {
		t.Fatalf("the root go.mod has no module line or no mcp-go requirement:\n%s", mod)
	}
	files := map[string]string{
		"go.mod":  rootLine.ReplaceAllString(string(mod), "module tiny"),
		"go.sum":  string(sum),
		"main.go": server,
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func run(t *testing.T, dir string, name string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	// -mod=readonly: a go.mod or go.sum the module would need changed fails
	// the test, so the go command downloads from the proxy only modules the
	// go.sum verifies, and never asks the checksum database.
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=readonly")
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("%s %v: %v", name, args, err)
	}
	return o.String(), e.String(), code
}

// TestCommandOnTinyModule runs the command the ways a user runs it. The
// command is built with go build, without -race, rather than run as this
// race-built test binary: under -race its analyses cost more CPU than the
// build does on an empty build cache. The subtests run in parallel (each
// waits on the go command much of its time); the suppressed variant gets a
// module of its own.
func TestCommandOnTinyModule(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command and a module")
	}
	bin := buildTool(t)
	dir := tinyModule(t, tinyServer)

	t.Run("vet", func(t *testing.T) {
		t.Parallel()
		_, stderr, code := run(t, dir, bin, "vet", "./...")
		if code != 3 {
			t.Fatalf("exit code %d, want 3 (findings)\n%s", code, stderr)
		}
		for _, w := range wantFindings {
			if !strings.Contains(stderr, w) {
				t.Errorf("missing %q in\n%s", w, stderr)
			}
		}
		if n := strings.Count(stderr, "\n"); n != len(wantFindings) {
			t.Errorf("%d lines, want %d:\n%s", n, len(wantFindings), stderr)
		}
	})
	t.Run("json", func(t *testing.T) {
		t.Parallel()
		stdout, stderr, code := run(t, dir, bin, "vet", "-json", "./...")
		if code != 0 {
			t.Fatalf("exit code %d\n%s", code, stderr)
		}
		var tree map[string]map[string]json.RawMessage
		if err := json.Unmarshal([]byte(stdout), &tree); err != nil {
			t.Fatalf("%v in %s", err, stdout)
		}
		var diags []struct{ Posn, Message string }
		if err := json.Unmarshal(tree["tiny"]["masked"], &diags); err != nil || len(diags) != 1 || !regexp.MustCompile(`main.go:18:16$`).MatchString(diags[0].Posn) {
			t.Fatalf("masked = %+v (%v) in %s", diags, err, stdout)
		}
	})
	t.Run("go vet -vettool", func(t *testing.T) {
		t.Parallel()
		_, stderr, code := run(t, dir, "go", "vet", "-vettool="+bin, "./...")
		if code == 0 {
			t.Fatalf("go vet passed, want findings\n%s", stderr)
		}
		for _, w := range wantFindings {
			if !strings.Contains(stderr, w) {
				t.Errorf("missing %q in\n%s", w, stderr)
			}
		}
	})
	t.Run("suppressed", func(t *testing.T) {
		t.Parallel()
		src := strings.Replace(tinyServer, `			return nil, errors.New("city is required")`, `			return nil, errors.New("city is required") //mcpwrap:ignore masked the operator wants it masked`, 1)
		if src == tinyServer {
			t.Fatal("tinyServer has no errors.New line to annotate")
		}
		_, stderr, _ := run(t, tinyModule(t, src), bin, "vet", "./...")
		if strings.Contains(stderr, "masked:") || !strings.Contains(stderr, "exit:") {
			t.Fatalf("suppression not honoured or too broad:\n%s", stderr)
		}
	})
}

func TestUsageListsSubcommands(t *testing.T) {
	var out bytes.Buffer
	if code := runMain(nil, &out, &out); code != 2 {
		t.Errorf("no arguments: exit code %d, want 2", code)
	}
	for _, name := range []string{"vet", "audit"} {
		if !strings.Contains(out.String(), "  "+name+" ") {
			t.Errorf("usage does not list %s:\n%s", name, out.String())
		}
	}
}

func TestVersionFlagPrintsTheModuleVersion(t *testing.T) {
	for _, c := range []struct {
		name string
		info *debug.BuildInfo
		ok   bool
		want string
	}{
		{"installed from a tag", &debug.BuildInfo{Main: debug.Module{Path: "github.com/mcpwrap/mcpwrap/cmd/mcpwrap", Version: "v0.1.0"}}, true, "v0.1.0"},
		{"built from a checkout", &debug.BuildInfo{Main: debug.Module{Path: "github.com/mcpwrap/mcpwrap/cmd/mcpwrap", Version: "(devel)"}}, true, "(devel)"},
		{"no version stamped", &debug.BuildInfo{}, true, "(devel)"},
		{"no build info", nil, false, "(devel)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := version(c.info, c.ok); got != c.want {
				t.Errorf("version = %q, want %q", got, c.want)
			}
		})
	}
	for _, flag := range []string{"-version", "--version"} {
		var stdout, stderr bytes.Buffer
		if code := runMain([]string{flag}, &stdout, &stderr); code != 0 || !regexp.MustCompile(`^mcpwrap (\(devel\)|v\S+)\n$`).MatchString(stdout.String()) || stderr.Len() != 0 {
			t.Errorf("mcpwrap %s: exit %d, stdout %q, stderr %q", flag, code, stdout.String(), stderr.String())
		}
	}
}
