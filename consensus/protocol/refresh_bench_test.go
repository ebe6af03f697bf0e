package protocol

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"go.uber.org/zap"

	"github.com/fhegate/fhegate/consensus/transport"
	"github.com/fhegate/fhegate/fhe"
)

// BenchmarkRefreshBGVN14 is one verified collective refresh (coin toss,
// sanitisation, a proven mask from each member made inline — no MaskPool —
// and verified by the others, every 2-subset's shares, the cross-check and
// the re-encryption on every member) of a 2-of-3 committee on
// bgv-n14-t65537 over the in-memory hub, for an input at level 1 and at
// level 2 (the floors of the default and of the packed noise bounds), and
// at level 1 with every member's masks made ahead (level=1/pooled, as a
// serving member's MaskPool). One op is the wall time until every member
// has the output.
//
//	go test ./consensus/protocol -run '^$' -bench RefreshBGVN14 -benchtime 10x
func BenchmarkRefreshBGVN14(b *testing.B) {
	p := fhe.MustParams(fhe.BGVN14)
	const n, th = 3, 2
	hub := transport.NewHub(n)
	members := make([]transport.MemberID, n)
	muxes := make([]*transport.Mux, n)
	for i := range members {
		members[i] = transport.MemberID(i + 1)
		muxes[i] = transport.NewMux(hub.Endpoint(members[i]), zap.NewNop())
	}
	b.Cleanup(func() {
		for _, m := range muxes {
			m.Close()
		}
	})
	group := func(i int) Group {
		return Group{Mux: muxes[i], Members: members, Threshold: th, Timeout: time.Minute, Log: zap.NewNop()}
	}
	kms := make([]*KeyMaterial, n)
	keys := make([]*ThresholdKey, n)
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range members {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			kms[i], keys[i], errs[i] = RunDKG(context.Background(), group(i), DKGConfig{Params: p, Epoch: 1})
		}(i)
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			b.Fatal(err)
		}
	}
	ev, err := fhe.NewEvaluator(p, fhe.EvaluationKeys{})
	if err != nil {
		b.Fatal(err)
	}
	top, err := fhe.NewEncryptor(kms[0].Public).EncryptInts([]int64{1, 2, 3})
	if err != nil {
		b.Fatal(err)
	}
	runs := 0
	refresh := func(b *testing.B, ct *fhe.Ciphertext, session string, pools []*MaskPool) {
		for i := range members {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				g := group(i)
				if pools != nil {
					g.Masks = pools[i]
				}
				_, errs[i] = Refresh(context.Background(), g, keys[i], newMemLedger(), RefreshRequest{Session: session, Ciphertext: ct,
					Active: members, Receivers: members, PublicKey: kms[i].Public})
			}(i)
		}
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				b.Fatal(err)
			}
		}
	}
	// pooled: every member's masks made ahead (MaskPool, as a serving
	// member), one refresh at a time with 3 s of pause so the pools
	// refill outside the timed refresh (the pause is not timed).
	b.Run("level=1/pooled", func(b *testing.B) {
		ct, err := ev.DropLevels(top, top.Level()-1)
		if err != nil {
			b.Fatal(err)
		}
		pools := make([]*MaskPool, n)
		for i := range pools {
			zk, err := proofKey(kms[i].Public, nil) // the key Refresh looks up for member i
			if err != nil {
				b.Fatal(err)
			}
			pools[i] = NewMaskPool(zk, keys[i].Epoch, members[i], 1)
			defer pools[i].Close()
		}
		for it := 0; it < b.N; it++ {
			b.StopTimer()
			time.Sleep(3 * time.Second)
			b.StartTimer()
			runs++
			refresh(b, ct, fmt.Sprintf("bench/pooled/%d", runs), pools)
		}
	})
	for _, level := range []int{1, 2} {
		ct, err := ev.DropLevels(top, top.Level()-level)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("level=%d", level), func(b *testing.B) {
			for it := 0; it < b.N; it++ {
				runs++ // sessions are unique across the benchmark's rounds (b.N = 1, then more)
				refresh(b, ct, fmt.Sprintf("bench/%d/%d", level, runs), nil)
			}
		})
	}
}

// BenchmarkRefreshFlooding is the flooding one active member adds to its
// refresh share on bgv-n14-t65537 (2-of-3): a fresh GaussianSampler and one
// polynomial at the input level, for the default bound (σ_j = 2^45.5,
// level 1) and the packed one (σ_j = 2^86.5, level 2, the wide sampler).
func BenchmarkRefreshFlooding(b *testing.B) {
	p := fhe.MustParams(fhe.BGVN14)
	for _, tc := range []struct {
		noise float64
		level int
	}{{0, 1}, {57, 2}} {
		b.Run(fmt.Sprintf("noise=%v/level=%d", tc.noise, tc.level), func(b *testing.B) {
			ringQ := p.RLWE().RingQ().AtLevel(tc.level)
			e := ringQ.NewPoly()
			for it := 0; it < b.N; it++ {
				fs, err := NewGaussianSampler(RefreshShareSigmaBits(tc.noise, 2))
				if err != nil {
					b.Fatal(err)
				}
				fs.ReadNTT(ringQ, e)
			}
		})
	}
}
