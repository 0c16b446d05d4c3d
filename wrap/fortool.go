package wrap

import "fmt"

// ForTool gives one tool options of its own, on top of the Wrapper's: the
// one way to say "for this tool". name is a tool's name, or the name the
// layers know a resource read or a prompt by: "resources/read" for every
// resources/read, "prompts/get " and the prompt's name ("prompts/get
// summarize") for a prompts/get.
//
//	wrap.New(
//		wrap.WithTimeout(10*time.Second),
//		wrap.ForTool("copy_file", wrap.WithTimeout(2*time.Minute)),
//		wrap.ForTool("get_forecast", wrap.WithRetry(wrap.RetryPolicy{Idempotent: true})),
//		wrap.ForTool("read_file", wrap.WithResultLimit(8<<20), wrap.WithArgumentValues()),
//	)
//
// The precedence rule, the one for every option: a tool's own options win
// over the Wrapper's, and the options a tool is registered with
// (mcpgo.Tool, mcpgo.Typed, gosdk.Tool, gosdk.AddTool) win over ForTool's,
// the last given winning among equals. ForTool given more than once for a
// name adds up. Options that only mean something for the whole Wrapper —
// WithAuthorization, and ForTool itself — make New panic when given for
// one tool, as WithScopes does when given to the Wrapper itself or for a
// prompt or resources/read (their scopes are authz.Policy's Prompts and
// Resources): no option is dropped without a word.
func ForTool(name string, opts ...Option) Option {
	return func(c *config) {
		m := make(map[string][]Option, len(c.tools)+1)
		for k, v := range c.tools {
			m[k] = v
		}
		m[name] = append(m[name][:len(m[name]):len(m[name])], opts...)
		c.tools = m
	}
}

// ownConfig is the configuration of the chain that serves one tool: base
// with opts on top. It panics on an option that means nothing there (see
// ForTool).
func ownConfig(base *config, name string, opts []Option) config {
	c := newConfig(*base, opts)
	switch {
	case c.policy != base.policy:
		panic(fmt.Sprintf("wrap: WithAuthorization given for the tool %q: it applies to the whole Wrapper; give it to wrap.New", name))
	case len(c.tools) != len(base.tools):
		panic(fmt.Sprintf("wrap: ForTool given inside the options of the tool %q: give it to wrap.New", name))
	}
	c.infoName = name
	return c
}
