package gosdk

// Middleware is the receiving middleware Attach adds, for benchmarks that
// run it over a handler without a server.
var Middleware = middleware
