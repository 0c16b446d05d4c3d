module github.com/mcpwrap/mcpwrap/wrap/authz/jwtauth

go 1.25.5

require github.com/mcpwrap/mcpwrap v0.0.0-00010101000000-000000000000

require github.com/go-jose/go-jose/v4 v4.1.3

replace github.com/mcpwrap/mcpwrap => ../../..
