package readme

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// maxDocLines is how long a package doc (doc.go) may be: what the package
// is for and its one way in; the detail goes to docs/.
const maxDocLines = 40

// longDocs are the package docs still longer, each held to its length.
var longDocs = map[string]int{
	"observe/doc.go":                    44,
	"wrap/outbound/outboundtest/doc.go": 44,
	"wrap/upstream/doc.go":              42,
}

// TestPackageDocsStayShort: no package doc outgrows the front door (as
// wrap/gosdk's 71 lines, wrap/mcpgo's and wrap/outbound's 49 once did).
func TestPackageDocsStayShort(t *testing.T) {
	root := filepath.Join("..", "..")
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.Contains(path, "testdata") || strings.HasPrefix(d.Name(), ".")) && path != root {
			return filepath.SkipDir
		}
		if d.Name() != "doc.go" {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		limit := maxDocLines
		if n, ok := longDocs[rel]; ok {
			limit = n
		}
		if n := bytes.Count(b, []byte("\n")); n > limit {
			t.Errorf("%s has %d lines, want at most %d: move the detail to docs/", rel, n, limit)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
