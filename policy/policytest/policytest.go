// Package policytest holds policy documents that tests in several packages
// share (the committee's, the chain compiler's and the CLI's), so each is
// written once.
package policytest

// RefreshTwo and RefreshFour are policies over four inputs in 0..1 whose
// plans need collective refreshes on a depth-4 preset (the InsecureBGVN10
// test preset) in the form the committee evaluates, packed (one level less:
// every packed input is refreshed and rescaled once): each comparison takes
// every level above the refresh floor, so every && / || above them runs on
// refreshed operands — at least 2 and at least 4 refresh points.
const (
	RefreshTwo = `fhegate_policy: 1
name: refresh-two
inputs:
  - {name: a, min: 0, max: 1}
  - {name: b, min: 0, max: 1}
  - {name: c, min: 0, max: 1}
  - {name: d, min: 0, max: 1}
output:
  type: bool
  expr: "a > b && c > d"
`
	RefreshFour = `fhegate_policy: 1
name: refresh-four
inputs:
  - {name: a, min: 0, max: 1}
  - {name: b, min: 0, max: 1}
  - {name: c, min: 0, max: 1}
  - {name: d, min: 0, max: 1}
output:
  type: bool
  expr: "(a > b && c > d) && (a > d || b > c)"
`
)

// TooNoisy's verdict is Σ 4000·x_i over eight fresh inputs: its noise is 2^15
// times a fresh encryption's (2^28.5), 2^16.5 after the mask — past what the
// committee's flooding hides, so the committee and registerPolicy refuse it.
const TooNoisy = `fhegate_policy: 1
name: noisy
description: a heavily weighted sum of fresh inputs
inputs:
  - {name: a, min: 0, max: 1}
  - {name: b, min: 0, max: 1}
  - {name: c, min: 0, max: 1}
  - {name: d, min: 0, max: 1}
  - {name: e, min: 0, max: 1}
  - {name: f, min: 0, max: 1}
  - {name: g, min: 0, max: 1}
  - {name: h, min: 0, max: 1}
output:
  type: score
  min: 0
  max: 32000
  expr: "4000*a + 4000*b + 4000*c + 4000*d + 4000*e + 4000*f + 4000*g + 4000*h"
`
