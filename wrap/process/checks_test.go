package process_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpwrap/mcpwrap/internal/logbuf"
	"github.com/mcpwrap/mcpwrap/wrap/process"
)

type conf struct {
	Units string `json:"units"`
	Days  int    `json:"days"`
}

func env(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

func TestChecksReportEveryProblemAtOnce(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("good.json", `{"units":"metric","days":3}`)
	corrupt := write("corrupt.json", "{\n  \"units\": \"metric\",\n  \"days\": 3,,\n}")
	unknown := write("unknown.json", `{"units":"metric","dayz":3}`)
	wrongType := write("type.json", "{\n\"days\": \"three\"}")

	var c process.Checks
	c.LookupEnv = env(map[string]string{"WEATHER_API_URL": "not a url", "EMPTY": " ", "TIMEOUT": "soon", "SECRET_KEY": "hunter2"})
	c.Env("WEATHER_API_KEY")
	c.Env("EMPTY")
	c.EnvURL("WEATHER_API_URL")
	if got := c.EnvDuration("TIMEOUT", time.Second); got != time.Second {
		t.Fatalf("a malformed duration must give the default, got %v", got)
	}
	if c.Env("SECRET_KEY") != "hunter2" {
		t.Fatal("a set variable must be returned")
	}
	var g conf
	c.JSONFile(good, &g)
	c.JSONFile(filepath.Join(dir, "missing.json"), &conf{})
	c.JSONFile(corrupt, &conf{})
	c.JSONFile(unknown, &conf{})
	c.JSONFile(wrongType, &conf{})
	if g.Units != "metric" || g.Days != 3 {
		t.Fatalf("good file decoded as %+v", g)
	}

	want := []string{
		"environment variable WEATHER_API_KEY is required but not set",
		"environment variable EMPTY is required but empty",
		"environment variable WEATHER_API_URL must be an absolute http(s) URL",
		`environment variable TIMEOUT is not a duration`,
		"missing.json: does not exist",
		"corrupt.json: line 3, column 13: invalid character ','",
		`unknown.json: json: unknown field "dayz"`,
		`type.json: line 2, column 15: field "days" must be int, got string`,
	}
	if jsonv2 {
		// jsonv2 reports the offset where the bad value starts, not where
		// it ends (the column still points into the file's line).
		want[5] = "corrupt.json: line 3, column 12: invalid character ','"
		want[7] = `type.json: line 2, column 8: field "days" must be int, got string`
	}
	got := c.Problems()
	if len(got) != len(want) {
		t.Fatalf("want %d problems, got %d:\n%s", len(want), len(got), strings.Join(got, "\n"))
	}
	for i := range want {
		if !strings.Contains(got[i], want[i]) {
			t.Errorf("problem %d = %q, want it to contain %q", i, got[i], want[i])
		}
	}
	if strings.Contains(strings.Join(got, " "), "hunter2") || strings.Contains(strings.Join(got, " "), "not a url") {
		t.Fatal("a problem repeats a variable's value")
	}

	var logs logbuf.Buffer
	code := -1
	process.SetExit(&c, func(n int) { code = n })
	c.MustPass(logs.Logger())
	if code != 78 {
		t.Fatalf("exit code %d", code)
	}
	lines, _ := logs.Lines()
	if len(lines) != 1 || len(lines[0]["problems"].([]any)) != len(want) || lines[0]["level"] != "ERROR" {
		t.Fatalf("want one error line listing every problem, got %v", lines)
	}
}

func TestChecksPassQuietly(t *testing.T) {
	c := process.Checks{LookupEnv: env(map[string]string{"K": "v", "U": "https://api.example.com/v1"})}
	c.Env("K")
	if u := c.EnvURL("U"); u == nil || u.Host != "api.example.com" {
		t.Fatalf("url %v", u)
	}
	process.SetExit(&c, func(int) { t.Fatal("exited with no problem") })
	c.MustPass(nil)
	if p := c.Problems(); len(p) != 0 {
		t.Fatal(p)
	}
}

// A secret set in the wrong variable reached the log through the problem
// text, quoted in full.
func TestChecksNeverEchoAValue(t *testing.T) {
	const key = "sk_live_51HxQzWq8d7f6g5h4j3k2l1"
	dir := t.TempDir()
	typed := filepath.Join(dir, "typed.json")
	if err := os.WriteFile(typed, []byte(`{"days": 424242424242}`), 0o600); err != nil {
		t.Fatal(err)
	}
	c := process.Checks{LookupEnv: env(map[string]string{"API_TIMEOUT": key, "API_URL": key})}
	c.EnvDuration("API_TIMEOUT", time.Second)
	c.EnvURL("API_URL")
	c.JSONFile(typed, &struct {
		Days int8 `json:"days"`
	}{})
	var logs logbuf.Buffer
	process.SetExit(&c, func(int) {})
	c.MustPass(logs.Logger())
	out := strings.Join(c.Problems(), "\n") + logs.String()
	if len(c.Problems()) != 3 {
		t.Fatalf("want 3 problems, got %q", c.Problems())
	}
	for _, v := range []string{key, "sk_live", "424242424242"} {
		if strings.Contains(out, v) {
			t.Errorf("a problem echoes the value %q:\n%s", v, out)
		}
	}
}

// jsonv2 reports whether encoding/json is the GOEXPERIMENT=jsonv2 one,
// which places a type error's offset at the start of the value.
var jsonv2 = func() bool {
	var v struct{ A int }
	var ute *json.UnmarshalTypeError
	return errors.As(json.Unmarshal([]byte(`{"A":"x"}`), &v), &ute) && ute.Offset == 5
}()
