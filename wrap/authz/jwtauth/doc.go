// Package jwtauth verifies JWT access tokens (RFC 9068) for an MCP server
// over HTTP: the signature, by a key of the issuer's JWKS (fetched once,
// used for Config.MaxAge, and fetched again when a token names a key it
// does not hold, so that the issuer's key rotation needs no restart);
// the algorithm, from an allow-list of asymmetric ones; "exp" (required),
// "nbf" and "iat" with a clock skew; the issuer; and the audience, which
// must be this server's resource URI, as the MCP authorization
// specification requires. Its one way in is New; Verifier.Verify is an
// authz.Verifier, for authz.RequireBearer (or, on go-sdk,
// gosdk.TokenVerifier and auth.RequireBearerToken):
//
//	v, err := jwtauth.New(ctx, jwtauth.Config{
//		Issuer:   "https://auth.example.com/",
//		Audience: "https://mcp.example.com/mcp",
//	})
//	if err != nil {
//		log.Fatal(err)
//	}
//	handler := authz.RequireBearer(v.Verify, authz.Bearer{
//		ResourceMetadata: "https://mcp.example.com/.well-known/oauth-protected-resource/mcp",
//	})(mcpHandler)
//
// The caller's Subject is the token's "sub" (or "client_id"), its Scopes
// the "scope" claim (space-separated) or "scp" (an array), its Claims
// every claim. An opaque token (one the authorization server must be
// asked about, RFC 7662 introspection) needs no package: an
// authz.Verifier func that asks is the whole of it.
//
// It is its own module, so that a server that verifies no JWT links no
// JOSE library: github.com/go-jose/go-jose/v4, which requires no other
// module.
package jwtauth
