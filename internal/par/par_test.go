package par

import (
	"errors"
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestForEach: every piece runs exactly once, worker indices stay below
// Workers, and the results are the same for any worker count.
func TestForEach(t *testing.T) {
	for _, tc := range []struct{ n, workers int }{{0, 4}, {1, 4}, {7, 1}, {7, 3}, {100, 8}, {5, 0}} {
		t.Run(fmt.Sprintf("n%d_w%d", tc.n, tc.workers), func(t *testing.T) {
			out := make([]int, tc.n)
			var calls atomic.Int64
			w := Workers(tc.n, tc.workers)
			err := ForEach(tc.n, tc.workers, func(wi, i int) error {
				require.Less(t, wi, w)
				calls.Add(1)
				out[i] = i * i
				return nil
			})
			require.NoError(t, err)
			require.EqualValues(t, tc.n, calls.Load())
			for i, v := range out {
				require.Equal(t, i*i, v)
			}
		})
	}
}

// TestForEachErrors: errors are joined in index order whatever the worker
// count, and the pieces after a failure still run.
func TestForEachErrors(t *testing.T) {
	var want string
	for _, workers := range []int{1, 2, 4} {
		var ran atomic.Int64
		err := ForEach(10, workers, func(_, i int) error {
			ran.Add(1)
			if i%3 == 1 {
				return fmt.Errorf("piece %d", i)
			}
			return nil
		})
		require.Error(t, err)
		require.EqualValues(t, 10, ran.Load())
		if want == "" {
			want = err.Error()
			require.Equal(t, errors.Join(errors.New("piece 1"), errors.New("piece 4"), errors.New("piece 7")).Error(), want)
		}
		require.Equal(t, want, err.Error(), "workers=%d", workers)
	}
}

// TestWorkers: at least one, at most n, GOMAXPROCS by default.
func TestWorkers(t *testing.T) {
	require.Equal(t, 1, Workers(0, 4))
	require.Equal(t, 3, Workers(3, 8))
	require.Equal(t, 2, Workers(10, 2))
	require.Equal(t, min(10, runtime.GOMAXPROCS(0)), Workers(10, 0))
}
