// Package testseed gives randomised tests a replayable seed.
//
// A test that draws fresh random inputs on every run calls Seed (or Rand): the
// seed comes from the clock unless the environment variable FHEGATE_TEST_SEED
// holds one, and it is always logged, so a failure prints the seed that
// replays it:
//
//	FHEGATE_TEST_SEED=1234 go test -run TestX -v ./gpu/...
//
// Tests that seed from a constant are already replayable and do not need it.
package testseed

import (
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
	"time"
)

// Env is the environment variable that replays a seed.
const Env = "FHEGATE_TEST_SEED"

// Seed returns the seed for t's random inputs — FHEGATE_TEST_SEED when set,
// else fresh from the clock — and logs it as "seed N". A malformed
// FHEGATE_TEST_SEED fails the test.
func Seed(t testing.TB) uint64 {
	t.Helper()
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv(Env); s != "" {
		v, err := strconv.ParseUint(s, 0, 64)
		if err != nil {
			t.Fatalf("%s=%q: %v", Env, s, err)
		}
		seed = v
	}
	t.Logf("seed %d (replay: %s=%d)", seed, Env, seed)
	return seed
}

// Rand returns a PCG generator on (Seed(t), stream); stream separates the
// generators of tests that share a seed.
func Rand(t testing.TB, stream uint64) *rand.Rand {
	t.Helper()
	return rand.New(rand.NewPCG(Seed(t), stream))
}
