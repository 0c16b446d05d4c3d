// Package validate binds a tool call's arguments to a typed struct and checks
// them with go-playground/validator tags, producing messages that name the
// parameter, the rule, what was expected and what came.
//
// It is being built; see the project's issues.
package validate
