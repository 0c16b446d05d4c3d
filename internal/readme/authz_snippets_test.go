package readme

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"

	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/authz"
	"github.com/mcpwrap/mcpwrap/wrap/mcpgo"
)

// docs/authorization.md: the policy.
func policyMap(logger *slog.Logger) *wrap.Wrapper {
	w := wrap.New(wrap.WithLogger(logger), wrap.WithAuthorization(authz.Policy{
		Tools: map[string][]string{
			"list_issues":       {"issues:read"},
			"create_issue":      {"issues:write"},
			"delete_repository": {"repo:admin"},
		},
		Prompts:   map[string][]string{"triage": {"issues:read"}},
		Resources: map[string][]string{"repo://*": {"issues:read"}},
		Public:    []string{"ping"},
	}))
	return w
}

// docs/authorization.md: a Check, confirmation and stdio.
func policyCheck() authz.Policy {
	p := authz.Policy{
		Tools: map[string][]string{"list_issues": {"issues:read"}},
		Check: func(ctx context.Context, c authz.Caller, r authz.Request) error {
			if r.Listing || len(r.Arguments) == 0 {
				return nil
			}
			var args struct{ Repo string }
			if err := json.Unmarshal(r.Arguments, &args); err != nil {
				return nil // the tool's own binding answers malformed arguments
			}
			tenant, _ := c.Claims["tenant"].(string)
			if !strings.HasPrefix(args.Repo, tenant+"/") {
				return errors.New("this token may only reach repositories of its own tenant")
			}
			return nil
		},
	}
	p.Confirm = authz.Confirm{Destructive: true, Tools: []string{"send_email"}}
	p.Local = []string{"issues:read", "issues:write"}
	return p
}

// README.md, docs/authorization.md: the policy's one line beside the attach.
func authorized(logger *slog.Logger, s *server.MCPServer) {
	w := wrap.New(wrap.WithLogger(logger), wrap.WithAuthorization(authz.Policy{
		Tools: map[string][]string{"list_issues": {"issues:read"}, "delete_repository": {"repo:admin"}},
	}))
	mcpgo.Attach(s, w)
}
