// Package api is what a client of an fhegate committee imports: the wire
// types of a member's client API (docs/committee.md, "Client API") and the
// HTTP client of its routes.
//
//	POST /v1/inputs        uploadwire body (or UploadRequest JSON) → AttestationJSON: UploadInputs, UploadInputsRooted
//	GET  /v1/publickey     the collective public key, HeaderEpoch, HeaderChainID: FetchKeyAnnouncement
//	POST /v1/private-read  PrivateReadRequest → PrivateReadResponse: RequestPrivateRead, ReadPrivate
//
// An upload's answer is an InputAttestation: the members' aggregate BLS
// signature over bls.InputBatchDigest that FHEInput.registerBatch checks,
// and, for a rooted upload, its place in an input root
// (InputRootAttestation, checked by InputAttestation.RootDigest). A private
// read is signed EIP-712 (PrivateReadDigest, PrivateReadTypedData) and
// combined from t members' shares with fhe/pkswitch, so a client links
// neither the committee's protocols (Lattigo's multiparty package) nor its
// store (bbolt): examples/fheclient, `fhegate encrypt` and `fhegate
// decrypt`, and the load generator (bench/load) build on this package
// alone. The server side is consensus/apiserver (APIHandler: tokens, quotas,
// body bounds) in front of package consensus (Member.UploadBatch,
// Member.PrivateRead).
//
// The clients send an upload as the binary body of package uploadwire
// (UploadBody: raw ciphertexts and proofs, half the bytes of hex in JSON);
// a member also reads the JSON form (UploadRequest), for hand-written
// clients and curl.
//
// Every decoder bounds what it reads: hex fields are length-checked before
// they are decoded, an attestation lists 1…MaxUploadItems items, an input
// root's path at most bls.MaxInputRootDepth siblings and its signer bitmap
// at most noise.MaxMembers bits, and a private-read body at most
// PrivateReadBodyLimit bytes.
package api
