package result_test

import (
	"strings"
	"testing"

	"github.com/mcpwrap/mcpwrap/internal/result"
)

// part is a content for the tests: text, or binary data when bin.
type part struct {
	s   string
	bin bool
}

type parts struct{}

func (parts) Text(c *part) (string, bool)      { return c.s, !c.bin }
func (parts) WithText(c *part, s string) *part { return &part{s: s} }
func (parts) Size(c *part) (int, bool)         { return len(c.s), true }
func (parts) NewText(s string) *part           { return &part{s: s} }
func texts(cs []*part) (out []string) {
	for _, c := range cs {
		out = append(out, c.s)
	}
	return out
}

func TestCut(t *testing.T) {
	cases := []struct {
		name    string
		in      []*part
		budget  int
		isError bool
		want    string
	}{
		{"fits", []*part{{s: "abc"}}, 100, false, "abc|note"},
		{"text cut", []*part{{s: strings.Repeat("x", 50)}}, 14, false, "xxxxxxxxxx|note"},
		{"binary left out", []*part{{s: strings.Repeat("b", 50), bin: true}, {s: "ok"}}, 20, false,
			"ok|note (1 binary content(s) left out)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := strings.Join(texts(result.Cut(parts{}, c.in, c.budget, "note", c.isError)), "|")
			if got != c.want {
				t.Fatalf("Cut = %q, want %q", got, c.want)
			}
		})
	}
}

func TestMapTextLeavesTheHandlersContents(t *testing.T) {
	in := []*part{{s: "token=abc"}, {s: "zzz", bin: true}}
	if out := result.MapText(parts{}, in, func(s string) string { return s }); out != nil {
		t.Fatalf("nothing changed, got a copy %v", texts(out))
	}
	out := result.MapText(parts{}, in, func(s string) string { return strings.ReplaceAll(s, "abc", "[REDACTED]") })
	if got := strings.Join(texts(out), "|"); got != "token=[REDACTED]|zzz" || in[0].s != "token=abc" {
		t.Fatalf("MapText = %q, the handler's text now %q", got, in[0].s)
	}
	if got := result.Text(parts{}, in); got != "token=abc" {
		t.Fatalf("Text = %q", got)
	}
}

func TestMeasureRefusesANilContent(t *testing.T) {
	_, err := result.Measure(parts{}, []*part{{s: "a"}, nil}, nil, false, nil)
	if err == nil || !strings.Contains(err.Error(), "content 1 is nil") {
		t.Fatalf("Measure = %v, want content 1 is nil", err)
	}
	n, err := result.Measure(parts{}, []*part{{s: "abc"}}, map[string]any{"k": "v"}, false, nil)
	if err != nil || n <= 3 {
		t.Fatalf("Measure = %d, %v", n, err)
	}
}
