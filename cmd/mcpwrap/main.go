// Command mcpwrap is mcpwrap's command line. This main only dispatches
// audit; the full one (with vet) is merged from another branch.
package main

import (
	"fmt"
	"os"

	"github.com/mcpwrap/mcpwrap/cmd/mcpwrap/internal/audit"
)

func main() {
	if len(os.Args) < 2 || os.Args[1] != "audit" {
		fmt.Fprintln(os.Stderr, "usage: mcpwrap audit [flags] <url> | mcpwrap audit [flags] -- <command> [args…]")
		os.Exit(2)
	}
	os.Exit(audit.Main(os.Args[2:], os.Stdout, os.Stderr))
}
