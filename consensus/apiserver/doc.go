// Package apiserver serves a committee member's client API (the routes and
// wire types of package consensus/api) in front of a consensus.Member:
// uploads are decoded, metered per owner and handed to
// Member.UploadBatch(Rooted); private reads are decoded with every field
// bounded (api.DecodePrivateRead), their signature verified
// (Member.VerifyPrivateRead) before the signer is metered, and handed to
// Member.PrivateRead. Bearer
// tokens are compared in constant time, every body is bounded per route
// (413 beyond), an owner over its token-bucket quota gets 429 with
// Retry-After, and off loopback the server refuses to run without TLS and
// tokens (NewAPIServer). Browser pages of the allowed origins may call it
// (CORS, APIOptions.AllowOrigins).
package apiserver
