module github.com/mcpwrap/mcpwrap/wrap/authz/cedarauthz

go 1.25.5

require (
	github.com/cedar-policy/cedar-go v1.6.0
	github.com/mark3labs/mcp-go v1.2.1
	github.com/mcpwrap/mcpwrap v0.0.0-00010101000000-000000000000
	go.uber.org/goleak v1.2.1
)

require (
	github.com/gabriel-vasile/mimetype v1.4.8 // indirect
	github.com/go-logr/logr v1.3.0 // indirect
	github.com/go-logr/stdr v1.2.2 // indirect
	github.com/go-playground/locales v0.14.1 // indirect
	github.com/go-playground/universal-translator v0.18.1 // indirect
	github.com/go-playground/validator/v10 v10.27.0 // indirect
	github.com/google/jsonschema-go v0.4.2 // indirect
	github.com/google/uuid v1.6.0 // indirect
	github.com/leodido/go-urn v1.4.0 // indirect
	github.com/lmittmann/tint v1.2.0 // indirect
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.2 // indirect
	github.com/spf13/cast v1.7.1 // indirect
	github.com/yosida95/uritemplate/v3 v3.0.2 // indirect
	go.opentelemetry.io/otel v1.21.0 // indirect
	go.opentelemetry.io/otel/metric v1.21.0 // indirect
	go.opentelemetry.io/otel/sdk v1.21.0 // indirect
	go.opentelemetry.io/otel/sdk/metric v1.21.0 // indirect
	go.opentelemetry.io/otel/trace v1.21.0 // indirect
	golang.org/x/crypto v0.33.0 // indirect
	golang.org/x/exp v0.0.0-20220921023135-46d9e7742f1e // indirect
	golang.org/x/net v0.34.0 // indirect
	golang.org/x/sys v0.30.0 // indirect
	golang.org/x/term v0.29.0 // indirect
	golang.org/x/text v0.22.0 // indirect
	golang.org/x/time v0.1.0 // indirect
)

// Inside this repository the root module is the checkout (go.work lists
// every module; the replace lets GOWORK=off and go mod tidy work too). A
// replace in a dependency's go.mod is ignored by its users: they get the
// version required above, which a release sets (docs/releasing.md).
replace github.com/mcpwrap/mcpwrap => ../../..
