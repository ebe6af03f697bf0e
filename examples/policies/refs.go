package main

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/fhegate/fhegate/policy/examples"
)

// A shipped policy with a plaintext reference written from its YAML text by
// hand (not from the compiler's plan), and the inputs' ranges.
type refPolicy struct {
	name   string     // example name (policy/examples)
	ranges [][2]int64 // inclusive [min, max] per input, in the spec's order
	ref    func(v []int64) int64
	// approve, if set, moves a uniform draw towards an approval (for
	// policies that uniform inputs almost never satisfy).
	approve func(r *rand.Rand, v []int64)
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// kyc_aml.yaml: age >= 18 && country not in sanctioned && risk < 60.
var sanctioned = []int64{7, 19, 23, 42, 57, 64, 88, 101, 113}

func kycAML(v []int64) int64 {
	age, country, pep, adverse, volume, cash, accountAge, jurisdiction := v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]
	risk := 16*pep + 6*adverse + 2*volume + 3*cash + (15 - accountAge) + 8*jurisdiction
	return b2i(age >= 18 && !slices.Contains(sanctioned, country) && risk < 60)
}

// credit_limit.yaml: amount <= 4*income - 2*debt + 8 && not default.
func creditLimit(v []int64) int64 {
	amount, income, debt, dflt := v[0], v[1], v[2], v[3]
	return b2i(amount <= 4*income-2*debt+8 && dflt == 0)
}

// allowlist.yaml: member in [1, 2, 3, 5].
func allowlist(v []int64) int64 { return b2i(slices.Contains([]int64{1, 2, 3, 5}, v[0])) }

// deep/nested_checks.yaml.
func nestedChecks(v []int64) int64 {
	offer, reserve, collateral, exposure := v[0], v[1], v[2], v[3]
	return b2i((offer > reserve && collateral > exposure) && (offer > exposure || reserve > collateral))
}

// deep/set_screening.yaml: the lists are the values below 256 of
// i·37+11 mod 512 (i < 200) and mod 509 (i < 150); the ids are in 0..255.
func setScreening(v []int64) int64 {
	in := func(x int64, n, m int64) bool {
		for i := int64(0); i < n; i++ {
			if (i*37+11)%m == x {
				return true
			}
		}
		return false
	}
	s, r := v[0], v[1]
	return b2i((in(s, 200, 512) && in(r, 200, 512)) && (in(s, 150, 509) || in(r, 150, 509)))
}

var refPolicies = []refPolicy{
	{"kyc_aml", [][2]int64{{0, 127}, {0, 127}, {0, 1}, {0, 3}, {0, 15}, {0, 7}, {0, 15}, {0, 3}}, kycAML, nil},
	{"credit_limit", [][2]int64{{0, 63}, {0, 15}, {0, 15}, {0, 1}}, creditLimit, nil},
	{"allowlist", [][2]int64{{0, 7}}, allowlist, nil},
	{"deep/nested_checks", [][2]int64{{0, 127}, {0, 127}, {0, 127}, {0, 127}}, nestedChecks, nil},
	{"deep/set_screening", [][2]int64{{0, 255}, {0, 255}}, setScreening, func(r *rand.Rand, v []int64) {
		v[0], v[1] = cleared(r), cleared(r) // both cleared
	}},
}

// cleared draws an id below 256 on set_screening's cleared list.
func cleared(r *rand.Rand) int64 {
	for {
		if v := (r.Int64N(200)*37 + 11) % 512; v < 256 {
			return v
		}
	}
}

func lookupRef(name string) (refPolicy, error) {
	for _, p := range refPolicies {
		if p.name == name {
			return p, nil
		}
	}
	return refPolicy{}, fmt.Errorf("no reference for policy %q (have %v)", name, examples.AllNames())
}

// draw returns random in-range inputs (draw k: odd draws go through
// p.approve when set).
func (p refPolicy) draw(r *rand.Rand, k int) []int64 {
	v := make([]int64, len(p.ranges))
	for i, rg := range p.ranges {
		v[i] = rg[0] + r.Int64N(rg[1]-rg[0]+1)
	}
	if p.approve != nil && k%2 == 1 {
		p.approve(r, v)
	}
	return v
}
