package protocol

import (
	"context"
	"sync"
	"testing"
	"time"

	"go.uber.org/zap"

	"github.com/fhegate/fhegate/consensus/transport"
	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/fhetest"
)

// BenchmarkDKG is one DKG of a 2-of-3 committee over the in-memory hub,
// without Galois keys (seed, public-key round with its shortness proofs,
// both relinearisation rounds, the Shamir round and the digest check; no
// self-test), on InsecureBGVN10 and bgv-n14-t65537. One op is the wall time
// until every member holds its key; all three members share the host's
// cores.
//
//	go test ./consensus/protocol -run '^$' -bench DKG -benchtime 3x
func BenchmarkDKG(b *testing.B) {
	for _, tc := range []struct {
		name   string
		preset fhe.PresetID
	}{
		{"InsecureBGVN10", fhetest.InsecureBGVN10},
		{"bgv-n14", fhe.BGVN14},
	} {
		b.Run(tc.name, func(b *testing.B) {
			p := fhe.MustParams(tc.preset)
			const n, th = 3, 2
			for epoch := uint64(1); b.Loop(); epoch++ {
				hub := transport.NewHub(n)
				members := make([]transport.MemberID, n)
				muxes := make([]*transport.Mux, n)
				for i := range members {
					members[i] = transport.MemberID(i + 1)
					muxes[i] = transport.NewMux(hub.Endpoint(members[i]), zap.NewNop())
				}
				var wg sync.WaitGroup
				errs := make([]error, n)
				for i := range members {
					wg.Add(1)
					go func(i int) {
						defer wg.Done()
						g := Group{Mux: muxes[i], Members: members, Threshold: th, Timeout: 5 * time.Minute, Log: zap.NewNop()}
						_, _, errs[i] = RunDKG(context.Background(), g, DKGConfig{Params: p, Epoch: epoch})
					}(i)
				}
				wg.Wait()
				for _, m := range muxes {
					m.Close()
				}
				for _, err := range errs {
					if err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
