package policy

import (
	"bytes"
	"fmt"
	"strconv"

	"gopkg.in/yaml.v3"
)

// SchemaVersion is the value of the mandatory top-level "fhegate_policy" key.
const SchemaVersion = 1

// Limits on policy documents (they bound compile time; Compile runs on-chain).
const (
	MaxSpecBytes   = 64 << 10
	MaxInputs      = 64
	MaxLets        = 256
	MaxConstants   = 256
	MaxExprBytes   = 4096
	MaxSetElems    = 4096
	MaxNameLen     = 64
	MaxExprNodes   = 4096
	MaxNestedDepth = 64
	// MaxAbs bounds every declared bound and constant: |v| ≤ 2^40.
	MaxAbs = int64(1) << 40
)

// Spec is a parsed (not yet compiled) policy document.
type Spec struct {
	Name        string
	Description string
	Preset      string // "" or "auto", or a preset name (see Presets)
	Inputs      []InputDecl
	Constants   []ConstDecl
	Lets        []LetDecl
	Output      OutputDecl
}

// InputDecl declares one encrypted input: an integer in [Min, Max], or
// (Type "uint8" … "uint64") a wide unsigned integer in [0, UMax] carried as
// base-16 digits (wide.go).
type InputDecl struct {
	Name     string
	Min, Max int64
	Doc      string
	// Type is "" for a one-slot integer, or uint8, uint16, uint32, uint64.
	Type string
	// Bits is the width of a wide input (8 … 64), UMax its largest value
	// (2^Bits − 1 unless the document gives max).
	Bits int
	UMax uint64
	line int
}

// Wide reports whether the input is a wide unsigned integer (carried as digits).
func (in InputDecl) Wide() bool { return in.Type != "" }

// ConstDecl is a public constant: an integer or a set of integers.
type ConstDecl struct {
	Name  string
	Value int64
	Set   []int64 // non-nil for a set
	// Big is set for an unsigned constant above MaxAbs (up to 2^64 − 1), held
	// in U: usable only with wide integers.
	Big  bool
	U    uint64
	line int
}

// LetDecl names an intermediate expression.
type LetDecl struct {
	Name string
	Expr string
	line int
	col  int
}

// OutputDecl is the verdict: a boolean, or a bounded integer score.
type OutputDecl struct {
	Type     string // "bool" or "score"
	Expr     string
	Min, Max int64 // score only
	line     int
	col      int
}

// ParseSpec parses a YAML (or JSON, which is YAML) policy document and checks
// its schema. It does not type-check expressions; Compile does.
func ParseSpec(doc []byte) (*Spec, error) {
	top, err := decodeTop(doc)
	if err != nil {
		return nil, err
	}
	p := &specParser{s: &Spec{}}
	if err := eachKey(top, "", p.field); err != nil {
		return nil, err
	}
	if err := p.complete(top); err != nil {
		return nil, err
	}
	return p.s, nil
}

// decodeTop decodes doc, which must be one YAML document of at most
// MaxSpecBytes, and returns its top-level node.
func decodeTop(doc []byte) (*yaml.Node, error) {
	if len(doc) > MaxSpecBytes {
		return nil, errAt(ErrSchema, 0, 0, "", "document is %d bytes, limit %d", len(doc), MaxSpecBytes)
	}
	var root yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(doc))
	if err := dec.Decode(&root); err != nil {
		return nil, yamlErr(err)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		return nil, errAt(ErrSyntax, extra.Line, extra.Column, "", "more than one YAML document")
	}
	if root.Kind != yaml.DocumentNode || len(root.Content) != 1 {
		return nil, errAt(ErrSchema, root.Line, root.Column, "", "empty document")
	}
	return root.Content[0], nil
}

// specParser fills a Spec from the top-level fields of a document and
// remembers which required fields it has seen.
type specParser struct {
	s                       *Spec
	seenVersion, seenOutput bool
}

// field parses one top-level field.
func (p *specParser) field(key string, k, v *yaml.Node) error {
	s := p.s
	switch key {
	case "fhegate_policy":
		return p.version(key, v)
	case "name":
		return s.parseName(key, v)
	case "description":
		str, err := strVal(v, key)
		if err != nil {
			return err
		}
		s.Description = str
	case "preset":
		return s.parsePreset(key, v)
	case "inputs":
		return s.parseInputs(v)
	case "constants":
		return s.parseConstants(v)
	case "let":
		return s.parseLets(v)
	case "output":
		p.seenOutput = true
		return s.parseOutput(v)
	default:
		return errAt(ErrSchema, k.Line, k.Column, key, "unknown field")
	}
	return nil
}

// version checks the schema version.
func (p *specParser) version(key string, v *yaml.Node) error {
	n, err := intVal(v, key)
	if err != nil {
		return err
	}
	if n != SchemaVersion {
		return errAt(ErrSchema, v.Line, v.Column, key, "schema version %d, this build reads %d", n, SchemaVersion)
	}
	p.seenVersion = true
	return nil
}

// complete reports the first missing required field.
func (p *specParser) complete(top *yaml.Node) error {
	switch {
	case !p.seenVersion:
		return errAt(ErrSchema, top.Line, top.Column, "fhegate_policy", "missing (must be %d)", SchemaVersion)
	case p.s.Name == "":
		return errAt(ErrSchema, top.Line, top.Column, "name", "missing")
	case len(p.s.Inputs) == 0:
		return errAt(ErrSchema, top.Line, top.Column, "inputs", "at least one encrypted input is required")
	case !p.seenOutput:
		return errAt(ErrSchema, top.Line, top.Column, "output", "missing")
	}
	return nil
}

func (s *Spec) parseName(key string, v *yaml.Node) error {
	str, err := strVal(v, key)
	if err != nil {
		return err
	}
	if !validName(str) {
		return errAt(ErrSchema, v.Line, v.Column, key, "%q is not a name ([a-z_][a-z0-9_-]*, ≤ %d bytes)", str, MaxNameLen)
	}
	s.Name = str
	return nil
}

func (s *Spec) parsePreset(key string, v *yaml.Node) error {
	str, err := strVal(v, key)
	if err != nil {
		return err
	}
	if str != "auto" {
		if _, ok := presetByName(str); !ok {
			return errAt(ErrSchema, v.Line, v.Column, key, "unknown preset %q (auto, bgv-n13-t65537, bgv-n14-t65537)", str)
		}
	}
	s.Preset = str
	return nil
}

func yamlErr(err error) error {
	// yaml.v3 messages carry "line N:"; keep them verbatim and try to lift the line.
	msg := err.Error()
	line := 0
	if i := bytes.Index([]byte(msg), []byte("line ")); i >= 0 {
		j := i + 5
		for j < len(msg) && msg[j] >= '0' && msg[j] <= '9' {
			j++
		}
		line, _ = strconv.Atoi(msg[i+5 : j])
	}
	return errAt(ErrSyntax, line, 0, "", "%s", msg)
}

// eachKey walks a mapping node in document order, rejecting duplicate keys.
func eachKey(m *yaml.Node, field string, f func(key string, k, v *yaml.Node) error) error {
	if m.Kind != yaml.MappingNode {
		return errAt(ErrSchema, m.Line, m.Column, field, "want a mapping, got %s", kindName(m))
	}
	seen := make(map[string]bool, len(m.Content)/2)
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			return errAt(ErrSchema, k.Line, k.Column, field, "keys must be plain strings")
		}
		if seen[k.Value] {
			return errAt(ErrSchema, k.Line, k.Column, join(field, k.Value), "duplicate field")
		}
		seen[k.Value] = true
		if err := f(k.Value, k, v); err != nil {
			return err
		}
	}
	return nil
}

func join(field, key string) string {
	if field == "" {
		return key
	}
	return field + "." + key
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		return "a scalar " + strconv.Quote(n.Value)
	case yaml.AliasNode:
		return "an alias"
	}
	return "nothing"
}

func intVal(v *yaml.Node, field string) (int64, error) {
	if v.Kind != yaml.ScalarNode || v.Tag != "!!int" {
		return 0, errAt(ErrSchema, v.Line, v.Column, field, "want an integer, got %s", kindName(v))
	}
	var n int64
	if err := v.Decode(&n); err != nil {
		return 0, errAt(ErrSchema, v.Line, v.Column, field, "want a 64-bit integer: %v", err)
	}
	if n > MaxAbs || n < -MaxAbs {
		return 0, errAt(ErrRange, v.Line, v.Column, field, "%d exceeds ±2^40", n)
	}
	return n, nil
}

// uintVal reads an unsigned integer up to 2^64 − 1 (wide constants and bounds).
func uintVal(v *yaml.Node, field string) (uint64, error) {
	if v.Kind != yaml.ScalarNode || v.Tag != "!!int" {
		return 0, errAt(ErrSchema, v.Line, v.Column, field, "want an integer, got %s", kindName(v))
	}
	var n uint64
	if err := v.Decode(&n); err != nil {
		return 0, errAt(ErrSchema, v.Line, v.Column, field, "want an unsigned 64-bit integer: %v", err)
	}
	return n, nil
}

func strVal(v *yaml.Node, field string) (string, error) {
	if v.Kind != yaml.ScalarNode {
		return "", errAt(ErrSchema, v.Line, v.Column, field, "want a string, got %s", kindName(v))
	}
	return v.Value, nil
}

func validName(s string) bool {
	if s == "" || len(s) > MaxNameLen {
		return false
	}
	for i, c := range []byte(s) {
		switch {
		case c >= 'a' && c <= 'z', c == '_':
		case (c >= '0' && c <= '9') || (c == '-' && i > 0):
			if i == 0 {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// validIdent is a name usable inside expressions (no '-').
func validIdent(s string) bool {
	if !validName(s) {
		return false
	}
	for _, c := range []byte(s) {
		if c == '-' {
			return false
		}
	}
	return !reserved[s]
}

var reserved = map[string]bool{"and": true, "or": true, "not": true, "in": true, "if": true, "true": true, "false": true}

func (s *Spec) parseInputs(v *yaml.Node) error {
	if v.Kind != yaml.SequenceNode {
		return errAt(ErrSchema, v.Line, v.Column, "inputs", "want a list, got %s", kindName(v))
	}
	if len(v.Content) > MaxInputs {
		return errAt(ErrSchema, v.Line, v.Column, "inputs", "%d inputs, limit %d", len(v.Content), MaxInputs)
	}
	for i, item := range v.Content {
		field := fmt.Sprintf("inputs[%d]", i)
		in := InputDecl{line: item.Line}
		var haveMin, haveMax bool
		var maxNode *yaml.Node
		err := eachKey(item, field, func(key string, k, val *yaml.Node) error {
			f := join(field, key)
			var err error
			switch key {
			case "name":
				if in.Name, err = strVal(val, f); err != nil {
					return err
				}
				if !validIdent(in.Name) {
					return errAt(ErrSchema, val.Line, val.Column, f, "%q is not an identifier ([a-z_][a-z0-9_]*, not a keyword)", in.Name)
				}
			case "min":
				in.Min, err = intVal(val, f)
				haveMin = true
			case "max":
				maxNode = val
				haveMax = true
				if u, uerr := uintVal(val, f); uerr == nil && u > uint64(MaxAbs) {
					in.UMax = u // only a wide input takes it (checked below)
					return nil
				}
				in.Max, err = intVal(val, f)
			case "type":
				var t string
				if t, err = strVal(val, f); err != nil {
					return err
				}
				bits, ok := wideTypes[t]
				if !ok {
					return errAt(ErrSchema, val.Line, val.Column, f, "want uint8, uint16, uint32 or uint64, got %q", t)
				}
				in.Type, in.Bits = t, bits
			case "range":
				if val.Kind != yaml.SequenceNode || len(val.Content) != 2 {
					return errAt(ErrSchema, val.Line, val.Column, f, "want [min, max]")
				}
				if in.Min, err = intVal(val.Content[0], f+"[0]"); err != nil {
					return err
				}
				in.Max, err = intVal(val.Content[1], f+"[1]")
				haveMin, haveMax = true, true
			case "doc":
				in.Doc, err = strVal(val, f)
			default:
				return errAt(ErrSchema, k.Line, k.Column, f, "unknown field")
			}
			return err
		})
		if err != nil {
			return err
		}
		if in.Name == "" {
			return errAt(ErrSchema, item.Line, item.Column, field+".name", "missing")
		}
		if in.Wide() {
			if err := in.wideBounds(item, maxNode, haveMin, haveMax, field); err != nil {
				return err
			}
			s.Inputs = append(s.Inputs, in)
			continue
		}
		if in.UMax != 0 {
			return errAt(ErrRange, maxNode.Line, maxNode.Column, field+".max", "%d exceeds ±2^40 (declare type: uint64 for a wide integer)", in.UMax)
		}
		switch {
		case !haveMin || !haveMax:
			return errAt(ErrSchema, item.Line, item.Column, field, "input %q needs min and max (or range: [min, max])", in.Name)
		case in.Min > in.Max:
			return errAt(ErrRange, item.Line, item.Column, field, "input %q: min %d > max %d", in.Name, in.Min, in.Max)
		case in.Max-in.Min >= PlaintextModulus:
			return errAt(ErrRange, item.Line, item.Column, field, "input %q: range [%d, %d] has more than t−1 = 65536 distinct steps%s", in.Name, in.Min, in.Max, wideHint(in))
		case in.Min < -HalfT || in.Max > HalfT:
			return errAt(ErrRange, item.Line, item.Column, field, "input %q: range [%d, %d] must lie in [−32768, 32768] to be encrypted exactly mod t%s", in.Name, in.Min, in.Max, wideHint(in))
		}
		s.Inputs = append(s.Inputs, in)
	}
	return nil
}

func (s *Spec) parseConstants(v *yaml.Node) error {
	if v.Kind == yaml.MappingNode && len(v.Content)/2 > MaxConstants {
		return errAt(ErrSchema, v.Line, v.Column, "constants", "%d constants, limit %d", len(v.Content)/2, MaxConstants)
	}
	return eachKey(v, "constants", func(key string, k, val *yaml.Node) error {
		f := join("constants", key)
		if !validIdent(key) {
			return errAt(ErrSchema, k.Line, k.Column, f, "%q is not an identifier", key)
		}
		c := ConstDecl{Name: key, line: k.Line}
		switch val.Kind {
		case yaml.ScalarNode:
			if u, err := uintVal(val, f); err == nil && u > uint64(MaxAbs) {
				c.Big, c.U = true, u
				break
			}
			n, err := intVal(val, f)
			if err != nil {
				return err
			}
			c.Value = n
		case yaml.SequenceNode:
			if len(val.Content) > MaxSetElems {
				return errAt(ErrSchema, val.Line, val.Column, f, "%d set elements, limit %d", len(val.Content), MaxSetElems)
			}
			c.Set = make([]int64, 0, len(val.Content))
			for i, e := range val.Content {
				n, err := intVal(e, fmt.Sprintf("%s[%d]", f, i))
				if err != nil {
					return err
				}
				c.Set = append(c.Set, n)
			}
		default:
			return errAt(ErrSchema, val.Line, val.Column, f, "want an integer or a list of integers, got %s", kindName(val))
		}
		s.Constants = append(s.Constants, c)
		return nil
	})
}

func (s *Spec) parseLets(v *yaml.Node) error {
	if v.Kind != yaml.SequenceNode {
		return errAt(ErrSchema, v.Line, v.Column, "let", "want a list, got %s", kindName(v))
	}
	if len(v.Content) > MaxLets {
		return errAt(ErrSchema, v.Line, v.Column, "let", "%d lets, limit %d", len(v.Content), MaxLets)
	}
	for i, item := range v.Content {
		field := fmt.Sprintf("let[%d]", i)
		l := LetDecl{line: item.Line}
		err := eachKey(item, field, func(key string, k, val *yaml.Node) error {
			f := join(field, key)
			var err error
			switch key {
			case "name":
				if l.Name, err = strVal(val, f); err == nil && !validIdent(l.Name) {
					err = errAt(ErrSchema, val.Line, val.Column, f, "%q is not an identifier", l.Name)
				}
			case "expr":
				l.Expr, err = strVal(val, f)
				l.line, l.col = val.Line, val.Column
			default:
				err = errAt(ErrSchema, k.Line, k.Column, f, "unknown field")
			}
			return err
		})
		if err != nil {
			return err
		}
		if l.Name == "" || l.Expr == "" {
			return errAt(ErrSchema, item.Line, item.Column, field, "needs name and expr")
		}
		s.Lets = append(s.Lets, l)
	}
	return nil
}

func (s *Spec) parseOutput(v *yaml.Node) error {
	o := OutputDecl{Type: "bool", line: v.Line, col: v.Column}
	var haveMin, haveMax bool
	err := eachKey(v, "output", func(key string, k, val *yaml.Node) error {
		f := join("output", key)
		var err error
		switch key {
		case "type":
			if o.Type, err = strVal(val, f); err == nil && o.Type != "bool" && o.Type != "score" {
				err = errAt(ErrSchema, val.Line, val.Column, f, "want bool or score, got %q", o.Type)
			}
		case "expr":
			o.Expr, err = strVal(val, f)
			o.line, o.col = val.Line, val.Column
		case "min":
			o.Min, err = intVal(val, f)
			haveMin = true
		case "max":
			o.Max, err = intVal(val, f)
			haveMax = true
		default:
			err = errAt(ErrSchema, k.Line, k.Column, f, "unknown field")
		}
		return err
	})
	if err != nil {
		return err
	}
	if o.Expr == "" {
		return errAt(ErrSchema, v.Line, v.Column, "output.expr", "missing")
	}
	if o.Type == "score" {
		if !haveMin || !haveMax {
			return errAt(ErrSchema, v.Line, v.Column, "output", "a score output needs min and max")
		}
		if o.Min > o.Max || o.Min < -HalfT || o.Max > HalfT {
			return errAt(ErrRange, v.Line, v.Column, "output", "score bounds [%d, %d] must satisfy min ≤ max within [−32768, 32768]", o.Min, o.Max)
		}
	} else if haveMin || haveMax {
		return errAt(ErrSchema, v.Line, v.Column, "output", "min/max are only for type: score")
	}
	s.Output = o
	return nil
}
