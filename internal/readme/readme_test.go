// Package readme checks the promise of README.md and docs/*.md that every
// Go snippet in them compiles: each ```go block must appear, line for line,
// in a Go file of the repository that the build (go vet ./...) compiles.
// The snippets themselves are in this package's *snippets_test.go files,
// so the library's build never compiles them.
// A block fenced "```go old" (docs/releasing.md's code of the removed API,
// which no longer compiles) is not a ```go block and is not checked.
package readme

import (
	"bufio"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var (
	trailingComment = regexp.MustCompile(`\s+//\s.*$`)
	spaces          = regexp.MustCompile(`\s+`)
)

// normalize drops blank lines and comments and collapses white space, so a
// snippet matches its compiled twin however it is aligned or annotated.
func normalize(lines []string) []string {
	var out []string
	for _, l := range lines {
		l = trailingComment.ReplaceAllString(l, "")
		l = strings.TrimSpace(spaces.ReplaceAllString(l, " "))
		if l == "" || strings.HasPrefix(l, "//") {
			continue
		}
		out = append(out, l)
	}
	return out
}

type snippet struct {
	line  int
	lines []string
}

func snippets(t *testing.T, path string) []snippet {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []snippet
	var cur *snippet
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		l := sc.Text()
		switch {
		case cur == nil && strings.TrimSpace(l) == "```go":
			cur = &snippet{line: n}
		case cur != nil && strings.TrimSpace(l) == "```":
			cur.lines = normalize(cur.lines)
			out = append(out, *cur)
			cur = nil
		case cur != nil:
			cur.lines = append(cur.lines, l)
		}
	}
	return out
}

func contains(haystack, needle []string) bool {
	for i := 0; i+len(needle) <= len(haystack); i++ {
		match := true
		for j := range needle {
			if haystack[i+j] != needle[j] {
				match = false
				break
			}
		}
		if match {
			return true
		}
	}
	return false
}

// TestEverySnippetCompiles fails for a snippet of README.md or docs/*.md
// that no compiled Go file of the repository contains.
func TestEverySnippetCompiles(t *testing.T) {
	root := filepath.Join("..", "..")
	var sources [][]string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") && p != root) {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "readme_test.go") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		sources = append(sources, normalize(strings.Split(string(b), "\n")))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	pages, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	pages = append([]string{filepath.Join(root, "README.md")}, pages...)
	for i, page := range pages {
		all := snippets(t, page)
		if i == 0 && len(all) == 0 {
			t.Fatal("no Go snippets found in README.md")
		}
		name, _ := filepath.Rel(root, page)
		for _, s := range all {
			found := false
			for _, src := range sources {
				if contains(src, s.lines) {
					found = true
					break
				}
			}
			if !found {
				t.Errorf("%s:%d: this snippet is in no compiled Go file (put it in internal/readme/snippets_test.go or an example):\n\t%s",
					name, s.line, strings.Join(s.lines, "\n\t"))
			}
		}
	}
}
