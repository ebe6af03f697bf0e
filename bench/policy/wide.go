package policy

import (
	"fmt"

	"github.com/fhegate/fhegate/policy/examples"
)

// wideSpecs are the policies of `fhegate bench policy --wide`:
// comparisons of 8-, 16-, 32- and 64-bit unsigned integers (base-16 digits,
// policy/wide.go) with a constant and with each other, and membership of a
// 16-bit code in the 1,000-entry list of amounts/sanctions_screen.
func wideSpecs() ([]spec, error) {
	cmp := func(name, typ, expr string, two bool) spec {
		in := "  - {name: x, type: " + typ + "}\n"
		if two {
			in += "  - {name: y, type: " + typ + "}\n"
		}
		return spec{name: name, doc: []byte("fhegate_policy: 1\nname: " + name + "\ninputs:\n" + in + "output: {expr: \"" + expr + "\"}\n")}
	}
	specs := []spec{
		cmp("cmp8_const", "uint8", "x >= 200", false),
		cmp("cmp16_const", "uint16", "x < 40000", false),
		cmp("cmp32_const", "uint32", "x > 3000000000", false),
		cmp("cmp64_const", "uint64", "x >= 2500000000000000000", false),
		cmp("cmp8_xy", "uint8", "x <= y", true),
		cmp("cmp16_xy", "uint16", "x <= y", true),
		cmp("cmp32_xy", "uint32", "x <= y", true),
		cmp("cmp64_xy", "uint64", "x <= y", true),
	}
	// The list: amounts/sanctions_screen's 1,000 codes, one membership.
	doc, err := examples.Get("amounts/sanctions_screen")
	if err != nil {
		return nil, err
	}
	list, err := listConstant(doc)
	if err != nil {
		return nil, err
	}
	specs = append(specs, spec{name: "list1000", doc: []byte("fhegate_policy: 1\nname: list1000\ninputs:\n  - {name: code, type: uint16}\nconstants:\n  listed: " + list + "\noutput: {expr: \"code not in listed\"}\n")})
	return specs, nil
}

// listConstant returns the flow sequence of the "listed:" constant of a
// document ("[…]", possibly over several lines).
func listConstant(doc []byte) (string, error) {
	s := string(doc)
	const key = "listed: ["
	i := indexOf(s, key)
	if i < 0 {
		return "", fmt.Errorf("no %q constant", key)
	}
	j := indexOf(s[i:], "]")
	if j < 0 {
		return "", fmt.Errorf("unterminated %q", key)
	}
	return s[i+len(key)-1 : i+j+1], nil
}

func indexOf(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return i
		}
	}
	return -1
}
