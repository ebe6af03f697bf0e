package fhe

import (
	"fmt"

	"github.com/tuneinsight/lattigo/v6/core/rlwe"
)

// Uploaded inputs and the ciphertext the committee evaluates.
//
// The input proof (fhe/zkpok) uses monomial challenges ±X^i, whose
// differences X^i − X^j are invertible modulo every odd prime but not in
// Z[X]/(X^N+1): 2/(X^i − X^j) is, with coefficients in {0, ±1}. So what an
// accepted proof establishes is a short preimage of 2·ĉ, not of ĉ — the
// relaxed relation of Benhamouda–Camenisch–Krenn–Lyubashevsky–Neven
// (ASIACRYPT 2014) and of SPDZ's input proofs ("2·ct is a valid
// ciphertext"). A ciphertext off the relation by (1−X)^{-1}·b (every
// coefficient ≈ Q/2) can pass, and its double is fine. The committee
// therefore evaluates 2·ct, never ct: a client encrypts its values at the
// upload scale 2^{-1} mod t (Lattigo's BGV encoder multiplies by the
// plaintext's scale, the decoder divides by it), so the upload ct carries
// 2^{-1}·m and decrypts to m, and Evaluable(ct) = 2·ct at scale 1 carries m
// with at most twice the noise the relation bounds. The upload's handle is
// keccak256 of its bytes as uploaded; the doubling happens where a stored
// input becomes an evaluable ciphertext (Evaluable, and SlotPacker's
// AddEncoded/AddEncodedBlock for the packed path), and only for ciphertexts
// at the upload scale (the input proof refuses any other), so a committee
// re-encryption (scale 1) is never doubled twice.

// UploadScale is the BGV plaintext scale of an uploaded input: 2^{-1} mod t
// (t is odd). For CKKS it is the default scale (no uploads are proven).
func (p *Params) UploadScale() rlwe.Scale {
	if p.Scheme() != SchemeBGV {
		return p.rlwe.DefaultScale()
	}
	t := p.PlaintextModulus()
	return rlwe.NewScaleModT(float64((t+1)/2), t)
}

// isUploadScale reports whether a BGV scale is the upload scale.
func (p *Params) isUploadScale(s rlwe.Scale) bool {
	return p.Scheme() == SchemeBGV && s.Cmp(p.UploadScale()) == 0
}

// IsUpload reports whether c is at the upload scale (see UploadScale).
func (c *Ciphertext) IsUpload() bool {
	return c != nil && c.ct != nil && c.ct.MetaData != nil && c.params.isUploadScale(c.ct.Scale)
}

// Evaluable returns the ciphertext the committee evaluates for a stored
// input: 2·c at scale 1 for an upload (IsUpload), c itself otherwise.
func (c *Ciphertext) Evaluable() (*Ciphertext, error) {
	if c == nil || c.ct == nil || c.ct.MetaData == nil {
		return nil, fmt.Errorf("fhe: nil ciphertext")
	}
	if !c.IsUpload() {
		return c, nil
	}
	out := c.ct.CopyNew()
	r := c.params.rlwe.RingQ().AtLevel(out.Level())
	for i := range out.Value {
		r.Add(out.Value[i], out.Value[i], out.Value[i])
	}
	out.Scale = c.params.bgv.DefaultScale()
	return WrapCiphertext(c.params, out)
}

// evaluableMeta returns the metadata of md's ciphertext as the committee
// evaluates it and the factor (1, or 2 for an upload) the ciphertext is
// multiplied by (Evaluable's rule, for the packer, which masks stored bytes
// without decoding them).
func (p *Params) evaluableMeta(md *rlwe.MetaData) (*rlwe.MetaData, uint64) {
	if !p.isUploadScale(md.Scale) {
		return md, 1
	}
	out := md.CopyNew()
	out.Scale = p.bgv.DefaultScale()
	return out, 2
}
