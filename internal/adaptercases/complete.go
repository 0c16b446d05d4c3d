package adaptercases

import (
	"sync"

	"github.com/mcpwrap/mcpwrap/wrap/authz"
)

// completionValues are what the completion tests' servers complete a
// prompt's or resource template's argument with: names a caller may or may
// not be allowed to see.
var completionValues = map[string][]string{
	"db_query":           {"orders", "users"},
	"secret_prompt":      {"prod-db-password"},
	"db://{name}/tables": {"orders", "users"},
	"secret://{key}":     {"aws-root-key"},
}

// CompletionPolicy lets issues:read complete db_query and
// db://{name}/tables, and only repo:admin the secrets.
func CompletionPolicy() authz.Policy {
	return authz.Policy{
		Prompts:   map[string][]string{"db_query": {"issues:read"}, "secret_prompt": {"repo:admin"}},
		Resources: map[string][]string{"db://{name}/tables": {"issues:read"}, "secret://{key}": {"repo:admin"}},
	}
}

// Completions is the completion code of the completion tests' servers,
// counting its runs by prompt name or template. Its zero value is ready;
// it is safe for concurrent use.
type Completions struct {
	mu  sync.Mutex
	ran map[string]int
}

// Complete counts a run for name, a prompt or a template, and returns its
// values: none (nil) for a name it does not know.
func (c *Completions) Complete(name string) []string {
	c.Count(name)
	return completionValues[name]
}

// Count counts a run for name.
func (c *Completions) Count(name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ran == nil {
		c.ran = map[string]int{}
	}
	c.ran[name]++
}

// Runs is how many runs Complete or Count counted for name.
func (c *Completions) Runs(name string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ran[name]
}
