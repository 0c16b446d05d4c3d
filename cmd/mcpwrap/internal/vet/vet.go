package vet

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/checker"
	"golang.org/x/tools/go/packages"
)

// Analyzers are the checks.
var Analyzers = []*analysis.Analyzer{ErrText, NilResult, Masked, CtxLost, GoPanic, Exit, Stdout, Secret, Panic, PerRequest}

// IsUnitchecker reports whether args (without the program name) are go vet's
// -vettool protocol: -V=full, -flags, or a trailing .cfg file.
func IsUnitchecker(args []string) bool {
	if len(args) == 0 {
		return false
	}
	if strings.HasPrefix(args[0], "-V") || args[0] == "-flags" {
		return true
	}
	return strings.HasSuffix(args[len(args)-1], ".cfg")
}

// Main runs `mcpwrap vet [flags] packages…`: it loads the packages from
// source, runs the checks and prints findings as file:line:col: message to
// stderr (or as JSON to stdout with -json). It returns 0 when clean, 3 when
// there are findings (as go vet's multichecker does) and 1 on errors.
func Main(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("mcpwrap vet", flag.ContinueOnError)
	fs.SetOutput(stderr)
	asJSON := fs.Bool("json", false, "print findings as JSON to stdout")
	tests := fs.Bool("test", true, "also check test files")
	contextLines := fs.Int("c", -1, "print this many lines of source around each finding")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: mcpwrap vet [flags] packages…\n\nChecks MCP tool, resource and prompt handlers (mcp-go, go-sdk):\n")
		for _, a := range Analyzers {
			fmt.Fprintf(stderr, "  %-10s %s\n", a.Name, a.Doc)
		}
		fmt.Fprintf(stderr, "\nSuppress a finding with //mcpwrap:ignore <check> <reason> on its line or the line above.\n\nFlags:\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return 0
		}
		return 2
	}
	patterns := fs.Args()
	if len(patterns) == 0 {
		patterns = []string{"."}
	}
	cfg := &packages.Config{Mode: packages.LoadAllSyntax | packages.NeedModule, Tests: *tests}
	pkgs, err := packages.Load(cfg, patterns...)
	if err != nil {
		fmt.Fprintf(stderr, "mcpwrap vet: %v\n", err)
		return 1
	}
	if n := packages.PrintErrors(pkgs); n > 0 {
		return 1
	}
	g, err := checker.Analyze(Analyzers, pkgs, nil)
	if err != nil {
		fmt.Fprintf(stderr, "mcpwrap vet: %v\n", err)
		return 1
	}
	if *asJSON {
		if err := g.PrintJSON(stdout); err != nil {
			fmt.Fprintf(stderr, "mcpwrap vet: %v\n", err)
			return 1
		}
		return 0
	}
	if err := g.PrintText(stderr, *contextLines); err != nil {
		fmt.Fprintf(stderr, "mcpwrap vet: %v\n", err)
		return 1
	}
	for act := range g.All() {
		if act.Err != nil {
			return 1
		}
	}
	for act := range g.All() {
		if act.IsRoot && len(act.Diagnostics) > 0 {
			return 3
		}
	}
	return 0
}
