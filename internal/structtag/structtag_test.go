package structtag_test

import (
	"reflect"
	"testing"

	"github.com/mcpwrap/mcpwrap/internal/structtag"
)

type sample struct {
	Plain  string
	Named  string `json:"named,omitempty"`
	Skip   string `json:"-"`
	Opts   int    `json:",string"`
	Key    string `json:"api_key" mcpwrap:"secret"`
	NotKey string `mcpwrap:"secretive"`
}

func TestJSONOf(t *testing.T) {
	typ := reflect.TypeFor[sample]()
	cases := []struct {
		field string
		want  structtag.JSON
	}{
		{"Plain", structtag.JSON{Name: "Plain"}},
		{"Named", structtag.JSON{Name: "named", Named: true, Options: "omitempty"}},
		{"Skip", structtag.JSON{Name: "Skip", Skip: true}},
		{"Opts", structtag.JSON{Name: "Opts", Options: "string"}},
	}
	for _, c := range cases {
		t.Run(c.field, func(t *testing.T) {
			f, _ := typ.FieldByName(c.field)
			if got := structtag.JSONOf(f); got != c.want {
				t.Fatalf("JSONOf(%s) = %+v, want %+v", c.field, got, c.want)
			}
		})
	}
	f, _ := typ.FieldByName("Opts")
	if !structtag.JSONOf(f).HasOption("string") || structtag.JSONOf(f).HasOption("omitempty") {
		t.Fatal("HasOption misreads \",string\"")
	}
}

func TestSecret(t *testing.T) {
	typ := reflect.TypeFor[sample]()
	for name, want := range map[string]bool{"Key": true, "NotKey": false, "Plain": false} {
		f, _ := typ.FieldByName(name)
		if got := structtag.Secret(f); got != want {
			t.Errorf("Secret(%s) = %v, want %v", name, got, want)
		}
	}
}
