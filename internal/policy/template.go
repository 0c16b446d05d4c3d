package policy

import (
	"regexp"
	"slices"
	"strings"

	"github.com/yosida95/uritemplate/v3"
)

// template is a Resources (or Public) key that is an RFC 6570 URI
// template, such as "db://{name}/tables": it authorizes reading the URIs
// the template serves. It is matched with the regular expression both
// SDKs route a resources/read with (uritemplate's Template.Regexp), so a
// URI the policy gives to a template is a URI that template serves.
type template struct {
	re *regexp.Regexp
	// lit is the text every URI the template serves starts with: most URIs
	// are told apart by it alone.
	lit    string
	scopes []string
}

// maxTemplateURIBytes bounds the URI a template is matched against: a
// client chooses the URI, and a regular expression's time is linear in
// it. A longer URI matches no template (only an exact key or a prefix),
// so it is denied unless something else names it.
const maxTemplateURIBytes = 16 << 10

// compileTemplate reports whether key is a URI template with at least one
// expression, and compiles it once, when the policy is evaluated. Any
// other key (no "{", or text uritemplate refuses) stays an exact URI.
func compileTemplate(key string, scopes []string) (template, bool) {
	if !strings.Contains(key, "{") {
		return template{}, false
	}
	t, err := uritemplate.New(key)
	if err != nil || len(t.Varnames()) == 0 {
		return template{}, false
	}
	re := t.Regexp()
	lit, _ := re.LiteralPrefix()
	return template{re: re, lit: lit, scopes: slices.Clone(scopes)}, true
}

// matches reports whether uri is one the template serves.
func (t *template) matches(uri string) bool {
	return len(uri) <= maxTemplateURIBytes && strings.HasPrefix(uri, t.lit) && t.re.MatchString(uri)
}

// templateScopes returns the scopes the templates matching uri require:
// all of them, when several templates serve it (which one an SDK routes
// the read to is its choice, not the policy's), and whether any matched.
func templateScopes(ts []template, uri string) ([]string, bool) {
	var out []string
	found := false
	for i := range ts {
		if !ts[i].matches(uri) {
			continue
		}
		if !found {
			out, found = ts[i].scopes, true
			continue
		}
		out = union(out, ts[i].scopes)
	}
	return out, found
}
