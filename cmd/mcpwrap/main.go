// Command mcpwrap is mcpwrap's tool: `mcpwrap vet` checks MCP server
// handlers before they run; `mcpwrap audit` scores a running MCP server.
//
// Usage:
//
//	mcpwrap vet [-json] packages…
//	go vet -vettool=$(command -v mcpwrap) ./...
//	mcpwrap audit [flags] <url>
//	mcpwrap audit [flags] -- <command> [args…]
//	mcpwrap -version
package main

import (
	"fmt"
	"io"
	"os"
	"runtime/debug"

	"github.com/mcpwrap/mcpwrap/cmd/mcpwrap/internal/audit"
	"github.com/mcpwrap/mcpwrap/cmd/mcpwrap/internal/vet"
	"golang.org/x/tools/go/analysis/unitchecker"
)

// A subcommand gets its arguments (after its name) and returns the exit code.
type subcommand struct {
	main  func(args []string, stdout, stderr io.Writer) int
	usage string
}

// subcommands is the dispatch point.
var subcommands = map[string]subcommand{
	"vet":   {vet.Main, "check MCP handlers (mcp-go, go-sdk) for what will go wrong for the model"},
	"audit": {audit.Main, "score a running MCP server (a URL, or -- a stdio command) against the failures that make models hallucinate"},
}

// order is the order usage lists the subcommands in.
var order = []string{"vet", "audit"}

func main() {
	// go vet -vettool runs the tool with its own protocol (-V=full, -flags,
	// a .cfg file per package); unitchecker speaks it and exits.
	if vet.IsUnitchecker(os.Args[1:]) {
		unitchecker.Main(vet.Analyzers...)
	}
	os.Exit(runMain(os.Args[1:], os.Stdout, os.Stderr))
}

func runMain(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "-help" || args[0] == "help" {
		usage(stderr)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	if args[0] == "-version" || args[0] == "--version" {
		fmt.Fprintln(stdout, "mcpwrap", version(debug.ReadBuildInfo()))
		return 0
	}
	sc, ok := subcommands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "mcpwrap: unknown subcommand %q\n", args[0])
		usage(stderr)
		return 2
	}
	return sc.main(args[1:], stdout, stderr)
}

// version is the module version the binary was built from: v0.1.0 after
// go install github.com/mcpwrap/mcpwrap/cmd/mcpwrap@v0.1.0, "(devel)" when
// built from a checkout (from Go 1.24 a build outside the workspace, with
// VCS stamping on, may print a pseudo-version of the commit instead).
func version(info *debug.BuildInfo, ok bool) string {
	if !ok || info.Main.Version == "" {
		return "(devel)"
	}
	return info.Main.Version
}

func usage(w io.Writer) {
	fmt.Fprintf(w, "usage: mcpwrap <subcommand> [flags] [args]\n\nSubcommands:\n")
	for _, name := range order {
		sc, ok := subcommands[name]
		if !ok {
			fmt.Fprintf(w, "  %-6s %s\n", name, "(not in this build)")
			continue
		}
		fmt.Fprintf(w, "  %-6s %s\n", name, sc.usage)
	}
	fmt.Fprintf(w, "\nmcpwrap -version prints the version it was built from.\n")
	fmt.Fprintf(w, "Also: go vet -vettool=$(command -v mcpwrap) ./... runs the vet checks under go vet.\n")
}
