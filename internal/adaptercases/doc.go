// Package adaptercases holds the cases of the tests that both adapters,
// wrap/mcpgo and wrap/gosdk, run on a real server of their own SDK: the
// case data, the tools' behaviour and what to expect live here once; each
// adapter's test registers the tools and makes the calls with its SDK.
package adaptercases
