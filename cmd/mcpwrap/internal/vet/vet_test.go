package vet_test

import (
	"slices"
	"testing"

	"github.com/mcpwrap/mcpwrap/cmd/mcpwrap/internal/vet"
	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/analysistest"
)

// checkPackages names, for each check, the testdata packages that hold its
// defects (marked // want) next to clean look-alikes, for both SDKs.
var checkPackages = []struct {
	analyzer *analysis.Analyzer
	pkgs     []string
}{
	{vet.ErrText, []string{"errtext"}},
	{vet.NilResult, []string{"nilresult"}},
	{vet.Masked, []string{"masked", "suppress"}},
	{vet.CtxLost, []string{"ctxlost"}},
	{vet.GoPanic, []string{"gopanic"}},
	{vet.Exit, []string{"exit"}},
	{vet.Stdout, []string{"stdout", "stdouthttp", "stdoutgosdk", "stdoutlib", "stdoutmain"}},
	{vet.Secret, []string{"secret"}},
}

// TestChecks runs every check on its own testdata packages in one
// analysistest run: a load type-checks the standard library from source,
// which one run per check did eight times over.
func TestChecks(t *testing.T) {
	var all []string
	for _, c := range checkPackages {
		all = append(all, c.pkgs...)
	}
	analysistest.Run(t, analysistest.TestData(), eachOnItsOwn(all), all...)
}

// eachOnItsOwn is one analyzer that runs every check of checkPackages as if
// it ran alone on its own packages: on a testdata package another check owns
// it does not run (no finding, no fact to expect there); on the packages
// below them (the SDK stubs, the standard library) it runs, for the facts a
// check reads from its dependencies.
func eachOnItsOwn(roots []string) *analysis.Analyzer {
	all := &analysis.Analyzer{Name: "checks", Doc: "every check on its own testdata packages"}
	for _, c := range checkPackages {
		for _, r := range c.analyzer.Requires {
			if !slices.Contains(all.Requires, r) {
				all.Requires = append(all.Requires, r)
			}
		}
		all.FactTypes = append(all.FactTypes, c.analyzer.FactTypes...)
	}
	all.Run = func(pass *analysis.Pass) (any, error) {
		path := pass.Pkg.Path()
		for _, c := range checkPackages {
			if slices.Contains(roots, path) && !slices.Contains(c.pkgs, path) {
				continue
			}
			own := *pass
			own.Analyzer = c.analyzer
			if _, err := c.analyzer.Run(&own); err != nil {
				return nil, err
			}
		}
		return nil, nil
	}
	return all
}

func TestAnalyzersValidate(t *testing.T) {
	if err := analysis.Validate(vet.Analyzers); err != nil {
		t.Fatal(err)
	}
}
