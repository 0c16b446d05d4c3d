package paging

import (
	"testing"
)

func TestPagingParameter(t *testing.T) {
	for name, want := range map[string]bool{"limit": true, "pageSize": true, "max_results": true, "perPage": true, "nextCursor": true,
		"page-token": true, "offset": true, "count": true, "account": false, "firstName": false, "topic": false, "path": false,
		"guidelines": false, "maximal": false, "per": true, "MaxItems": true, "page": true, "url": false, "message": false} {
		if got := parameter(name); got != want {
			t.Errorf("parameter(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestParam(t *testing.T) {
	for _, c := range []struct {
		schema any
		want   string
	}{
		{map[string]any{"type": "object", "properties": map[string]any{"path": map[string]any{}, "offset": map[string]any{}, "limit": map[string]any{}}}, "limit"},
		{[]byte(`{"type":"object","properties":{"account":{}}}`), ""},
		{nil, ""},
		{"not a schema", ""},
	} {
		if got := Param(c.schema); got != c.want {
			t.Errorf("Param(%v) = %q, want %q", c.schema, got, c.want)
		}
	}
}
