package zkpok_test

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/fhetest"
	"github.com/fhegate/fhegate/fhe/zkpok"
)

// relevel returns ct dropped to level (its first level+1 rows), as a
// member's DropLevels would: same scale, same metadata.
func relevel(t *testing.T, ct *fhe.Ciphertext, level int) (*fhe.Ciphertext, fhe.Handle) {
	t.Helper()
	raw := ct.Lattigo().CopyNew()
	raw.Resize(raw.Degree(), level)
	out, err := fhe.WrapCiphertext(ct.Params(), raw)
	require.NoError(t, err)
	h, err := out.Handle()
	require.NoError(t, err)
	return out, h
}

// TestUploadLevel: clients upload at UploadLevel (= the pack level). A
// proof made at any level from UploadLevel to the top verifies — with a key
// of any level (Verify picks the key of the ciphertext's level) — and the
// ciphertext decrypts to the values; anything below UploadLevel is refused
// with ErrInvalid; a proof does not carry over to the same input dropped to
// another level (the handle, hence the transcript, binds the level).
func TestUploadLevel(t *testing.T) {
	for _, tc := range []struct {
		id     fhe.PresetID
		upload int
	}{
		{fhetest.InsecureBGVN10, 3},
		{fhetest.InsecureBGVN10Deep, 2},
		{fhe.BGVN13, 3},
	} {
		k := getKit(t, tc.id)
		p := k.p
		t.Run(p.Preset.Name, func(t *testing.T) {
			ul, err := zkpok.UploadLevel(p)
			require.NoError(t, err)
			require.Equal(t, tc.upload, ul)
			bounds, err := zkpok.PackBounds(p)
			require.NoError(t, err)
			require.Greater(t, bounds.WorstBits, bounds.NoiseBits)
			up, err := zkpok.NewUploadKey(k.keys.Public)
			require.NoError(t, err)
			require.Equal(t, ul, up.Level())
			require.Equal(t, p.MaxLevel(), k.key.Level())
			require.GreaterOrEqual(t, up.PP.SoundnessBits, 128.0)
			dec := fhe.NewDecryptor(k.keys.Secret)
			vals := []int64{7, -3, 65536, 32768, -32768, 0, 1}
			want := []int64{7, -3, -1, 32768, -32768, 0, 1}
			cts := map[int]*fhe.Ciphertext{}
			proofs := map[int][]byte{}
			for l := ul; l <= p.MaxLevel(); l++ {
				kl, err := up.AtLevel(l)
				require.NoError(t, err)
				require.Equal(t, l, kl.Level())
				again, err := k.key.AtLevel(l)
				require.NoError(t, err)
				require.Equal(t, l, again.Level())
				ct, proof, err := kl.EncryptInts(vals, victim)
				require.NoError(t, err)
				require.Equal(t, l, ct.Level())
				require.Len(t, proof, up.PP.Size(), "the proof's size does not depend on the level")
				b, err := ct.MarshalBinary()
				require.NoError(t, err)
				require.Len(t, b, ct.EncodedSize())
				ct2, err := fhe.UnmarshalCiphertext(b)
				require.NoError(t, err)
				h := fhe.HandleOf(b)
				for _, v := range []*zkpok.Key{up, kl, k.key} {
					require.NoError(t, v.Verify(ct2, h, victim, proof), "level %d, verified with the key of level %d", l, v.Level())
				}
				require.ErrorIs(t, up.Verify(ct2, h, attacker, proof), zkpok.ErrInvalid)
				got, err := dec.DecryptInts(ct2)
				require.NoError(t, err)
				require.Equal(t, want, got[:len(want)], "level %d", l)
				ev, err := ct2.Evaluable()
				require.NoError(t, err)
				got, err = dec.DecryptInts(ev)
				require.NoError(t, err)
				require.Equal(t, want, got[:len(want)], "level %d, evaluable 2·ct", l)
				cts[l], proofs[l] = ct2, proof
			}
			top := p.MaxLevel()

			// Below the upload level: no key, and a ciphertext dropped there
			// is refused with its own proof.
			_, err = zkpok.NewKeyAt(k.keys.Public, ul-1)
			require.ErrorIs(t, err, zkpok.ErrInvalid)
			_, err = up.AtLevel(ul - 1)
			require.ErrorIs(t, err, zkpok.ErrInvalid)
			_, err = up.AtLevel(top + 1)
			require.ErrorIs(t, err, zkpok.ErrInvalid)
			low, lh := relevel(t, cts[ul], ul-1)
			err = up.Verify(low, lh, victim, proofs[ul])
			require.ErrorIs(t, err, zkpok.ErrInvalid)
			require.ErrorContains(t, err, "upload level")

			// A top-level proof does not verify for its ciphertext dropped to
			// the upload level, nor an upload-level proof for a top-level
			// ciphertext, nor for another level's ciphertext dropped to the
			// upload level.
			dropped, dh := relevel(t, cts[top], ul)
			require.ErrorIs(t, up.Verify(dropped, dh, victim, proofs[top]), zkpok.ErrInvalid)
			require.ErrorIs(t, up.Verify(dropped, dh, victim, proofs[ul]), zkpok.ErrInvalid)
			th, err := cts[top].Handle()
			require.NoError(t, err)
			require.ErrorIs(t, k.key.Verify(cts[top], th, victim, proofs[ul]), zkpok.ErrInvalid)
			if top > ul+1 {
				mid, mh := relevel(t, cts[ul+1], ul)
				require.ErrorIs(t, up.Verify(mid, mh, victim, proofs[ul+1]), zkpok.ErrInvalid)
			}
		})
	}
}

// TestUploadLevelConcurrent: AtLevel builds each level's key once and is
// safe for concurrent use (verifications of every level at once).
func TestUploadLevelConcurrent(t *testing.T) {
	k := getKit(t, fhetest.InsecureBGVN10Deep)
	pk := k.keys.Public
	up, err := zkpok.NewUploadKey(pk)
	require.NoError(t, err)
	type input struct {
		ct    *fhe.Ciphertext
		h     fhe.Handle
		proof []byte
	}
	var ins []input
	for l := up.Level(); l <= k.p.MaxLevel(); l += 3 {
		kl, err := zkpok.NewKeyAt(pk, l) // another key family of the same public key
		require.NoError(t, err)
		ct, proof, err := kl.EncryptInts([]int64{int64(l)}, victim)
		require.NoError(t, err)
		h, err := ct.Handle()
		require.NoError(t, err)
		ins = append(ins, input{ct, h, proof})
	}
	var wg sync.WaitGroup
	errs := make([]error, 4*len(ins))
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			in := ins[i%len(ins)]
			errs[i] = up.Verify(in.ct, in.h, victim, in.proof)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		require.NoError(t, err, "verification %d", i)
	}
	for l := up.Level(); l <= k.p.MaxLevel(); l++ {
		a, err := up.AtLevel(l)
		require.NoError(t, err)
		b, err := up.AtLevel(l)
		require.NoError(t, err)
		require.Same(t, a, b, "level %d is cached", l)
	}
}

// TestUploadLevelUnpackable: a preset that cannot pack has no upload level;
// its keys work at the top level only.
func TestUploadLevelUnpackable(t *testing.T) {
	k := getKit(t, fhetest.InsecureBGVN4)
	_, err := zkpok.UploadLevel(k.p)
	require.Error(t, err)
	_, err = zkpok.NewUploadKey(k.keys.Public)
	require.Error(t, err)
	_, err = k.key.AtLevel(k.p.MaxLevel() - 1)
	require.ErrorIs(t, err, zkpok.ErrInvalid)
	ct, h, proof := encrypt(t, k, []int64{3}, victim)
	require.NoError(t, k.key.Verify(ct, h, victim, proof))
}
