package validate

import (
	"maps"

	"github.com/go-playground/validator/v10"
)

// Option configures a Binder. Options are applied once, in New.
type Option func(*config)

// config is the evaluated form of the options; it never changes after New.
type config struct {
	allowUnknown bool
	rules        map[string]customRule
}

type customRule struct {
	fn       validator.Func
	expected string
}

// AllowUnknown makes a Binder ignore parameters its struct does not have,
// as encoding/json does, instead of rejecting them. The advertised schema
// then leaves additionalProperties open. The default, rejecting them, is
// what catches a model that invents a parameter name.
func AllowUnknown() Option {
	return func(c *config) { c.allowUnknown = true }
}

// WithRule registers a custom validator tag for this Binder's struct.
// expected completes the sentence "parameter "x" must be …" when the rule
// fails, e.g. WithRule("slug", isSlug, `a lowercase slug like "my-page"`).
// A nil fn is ignored.
func WithRule(tag string, fn validator.Func, expected string) Option {
	return func(c *config) {
		if fn == nil || tag == "" {
			return
		}
		m := make(map[string]customRule, len(c.rules)+1)
		maps.Copy(m, c.rules)
		m[tag] = customRule{fn: fn, expected: expected}
		c.rules = m
	}
}
