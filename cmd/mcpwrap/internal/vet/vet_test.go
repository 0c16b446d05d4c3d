package vet_test

import (
	"testing"

	"github.com/mcpwrap/mcpwrap/cmd/mcpwrap/internal/vet"
	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/analysistest"
)

// Each check's testdata package holds its defects (marked // want) next to
// clean look-alikes, for both SDKs. The checks run in parallel: each load
// type-checks the standard library from source, and a load waits on the go
// command much of its time.
func TestChecks(t *testing.T) {
	tests := []struct {
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
	for _, tt := range tests {
		t.Run(tt.analyzer.Name, func(t *testing.T) {
			t.Parallel()
			analysistest.Run(t, analysistest.TestData(), tt.analyzer, tt.pkgs...)
		})
	}
}

func TestAnalyzersValidate(t *testing.T) {
	if err := analysis.Validate(vet.Analyzers); err != nil {
		t.Fatal(err)
	}
}
