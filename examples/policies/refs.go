package main

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"

	"github.com/fhegate/fhegate/policy"
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
	// Policies over wide unsigned integers (policy/examples/amounts) give,
	// per declared input, its largest value (umax) and a reference over
	// the declared values (uref); tweak, if set, moves odd draws (towards
	// the rarer verdict). Their inputs travel as base-16 digits in one
	// vector input (policy.Plan.DecisionRow splits them).
	umax  []uint64
	uref  func(v []uint64) int64
	tweak func(r *rand.Rand, v []uint64)
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

// amounts/credit_dollars.yaml: 5·(debt + request) ≤ 2·income (a 40 %
// debt-to-income ratio after the new credit), in dollars.
func creditDollars(v []uint64) int64 {
	income, request, debt := v[0], v[1], v[2]
	return b2i(5*(debt+request) <= 2*income)
}

// listedCodes is amounts/sanctions_screen.yaml's list, rebuilt from its
// description: the first 1,000 distinct top-16-bit values of the 64-bit LCG
// x → 6364136223846793005·x + 1442695040888963407 from x = 20240601.
var listedCodes = func() map[uint64]bool {
	m := map[uint64]bool{}
	x := uint64(20240601)
	for len(m) < 1000 {
		x = x*6364136223846793005 + 1442695040888963407
		m[x>>48] = true
	}
	return m
}()

// amounts/sanctions_screen.yaml: counterparty not listed, and a transfer
// above 10,000 needs the sender unlisted too.
func sanctionsScreen(v []uint64) int64 {
	sender, counterparty, amount := v[0], v[1], v[2]
	return b2i(!listedCodes[counterparty] && (amount <= 10000 || !listedCodes[sender]))
}

// listed draws a code on the sanctions list.
func listed(r *rand.Rand) uint64 {
	for {
		if v := r.Uint64N(65536); listedCodes[v] {
			return v
		}
	}
}

// amounts/bid_reserve.yaml: the bid reaches the reserve (both 16-bit).
func bidReserve(v []uint64) int64 { return b2i(v[0] >= v[1]) }

// amounts/token_balance.yaml: balance ≥ 2.5·10^18.
func tokenBalance(v []uint64) int64 { return b2i(v[0] >= 2_500_000_000_000_000_000) }

var refPolicies = []refPolicy{
	{name: "kyc_aml", ranges: [][2]int64{{0, 127}, {0, 127}, {0, 1}, {0, 3}, {0, 15}, {0, 7}, {0, 15}, {0, 3}}, ref: kycAML},
	{name: "credit_limit", ranges: [][2]int64{{0, 63}, {0, 15}, {0, 15}, {0, 1}}, ref: creditLimit},
	{name: "allowlist", ranges: [][2]int64{{0, 7}}, ref: allowlist},
	{name: "deep/nested_checks", ranges: [][2]int64{{0, 127}, {0, 127}, {0, 127}, {0, 127}}, ref: nestedChecks},
	{name: "deep/set_screening", ranges: [][2]int64{{0, 255}, {0, 255}}, ref: setScreening, approve: func(r *rand.Rand, v []int64) {
		v[0], v[1] = cleared(r), cleared(r) // both cleared
	}},
	{name: "amounts/credit_dollars", umax: []uint64{1_000_000, 100_000, 1_000_000}, uref: creditDollars,
		tweak: func(r *rand.Rand, v []uint64) { v[2] = r.Uint64N(v[0]/3 + 1) }}, // low debt
	{name: "amounts/sanctions_screen", umax: []uint64{65535, 65535, 1_000_000}, uref: sanctionsScreen,
		tweak: func(r *rand.Rand, v []uint64) { // a listed sender or counterparty
			v[r.IntN(2)] = listed(r)
		}},
	{name: "amounts/bid_reserve", umax: []uint64{65535, 65535}, uref: bidReserve,
		tweak: func(r *rand.Rand, v []uint64) { // equal, or one apart, in either order
			v[1] = v[0]
			if d := r.IntN(3); d == 1 && v[0] < 65535 {
				v[1]++
			} else if d == 2 && v[0] > 0 {
				v[1]--
			}
		}},
	{name: "amounts/token_balance", umax: []uint64{^uint64(0)}, uref: tokenBalance,
		tweak: func(r *rand.Rand, v []uint64) { v[0] = 2_500_000_000_000_000_000 - 1 + r.Uint64N(3) }}, // at the threshold
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

// wide reports whether the policy's inputs are wide unsigned integers.
func (p refPolicy) wide() bool { return p.uref != nil }

// drawWide returns random declared values of a wide policy (odd draws go
// through p.tweak when set).
func (p refPolicy) drawWide(r *rand.Rand, k int) []uint64 {
	v := make([]uint64, len(p.umax))
	for i, m := range p.umax {
		if m == ^uint64(0) {
			v[i] = r.Uint64()
		} else {
			v[i] = r.Uint64N(m + 1)
		}
	}
	if p.tweak != nil && k%2 == 1 {
		p.tweak(r, v)
	}
	return v
}

// wideRow is the plan's input row of declared values v (the digits).
func wideRow(plan *policy.Plan, v []uint64) ([]int64, error) {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.FormatUint(x, 10)
	}
	return plan.DecisionRow(s)
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
