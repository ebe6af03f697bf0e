// Package stats holds the small summary statistics the benchmarks and the
// GPU gate's calibration share.
package stats

import "slices"

// Number is what Median averages: integer kinds (time.Duration) and
// floats.
type Number interface {
	~int | ~int64 | ~uint64 | ~float64
}

// Median is the median of v (the mean of the middle two for an even count;
// 0 for none). v is left as it is.
func Median[T Number](v []T) T {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	m := len(s) / 2
	if len(s)%2 == 0 {
		return (s[m-1] + s[m]) / 2
	}
	return s[m]
}
