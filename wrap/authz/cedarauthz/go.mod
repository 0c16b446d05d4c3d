module github.com/mcpwrap/mcpwrap/wrap/authz/cedarauthz

go 1.25.5

require (
	github.com/cedar-policy/cedar-go v1.6.0
	github.com/mcpwrap/mcpwrap v0.0.0-00010101000000-000000000000
	go.uber.org/goleak v1.2.1
)

require golang.org/x/exp v0.0.0-20220921023135-46d9e7742f1e // indirect

// Inside this repository the root module is the checkout (go.work lists
// every module; the replace lets GOWORK=off and go mod tidy work too). A
// replace in a dependency's go.mod is ignored by its users: they get the
// version required above, which a release sets (docs/releasing.md).
replace github.com/mcpwrap/mcpwrap => ../../..
