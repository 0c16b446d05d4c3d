package typo_test

import (
	"strings"
	"testing"

	"github.com/mcpwrap/mcpwrap/internal/typo"
)

func TestClosest(t *testing.T) {
	known := []string{"city", "days", "units", "include_hourly"}
	for _, tc := range []struct {
		name, in, want string
	}{
		{"case only", "CITY", "city"},
		{"one edit", "dyas", "days"},
		{"two edits", "unts", "units"},
		{"swap", "inculde_hourly", "include_hourly"},
		{"too far", "town", ""},
		{"too long to compare", strings.Repeat("x", 200), ""},
		{"short name, many edits", "d", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := typo.Closest(tc.in, known); got != tc.want {
				t.Errorf("Closest(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}
