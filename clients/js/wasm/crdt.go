package main

import (
	"encoding/hex"
	"fmt"

	"github.com/fhegate/fhegate/fhe/crdt/meta"
)

// CRDT metadata (fhe/crdt/meta): what a client writes into FHECRDT.create
// and what the chain does with it. CRDTCheck and CRDTMerge decide what
// FHECRDT.create and FHECRDT.merge decide about metadata
// (precompiles/corebackends.CRDTMeta; core_test.go checks them equal, the
// refusals word for word), so that contract mocks accept, merge and refuse
// metadata as the chain does.

// crdtDecode is corebackends' decode: the canonical state, of the CRDT kind
// the call names.
func crdtDecode(kind uint8, b []byte) (*meta.State, error) {
	s, err := meta.Decode(b)
	if err != nil {
		return nil, err
	}
	if s.Layout.Type != meta.Type(kind) {
		return nil, fmt.Errorf("metadata is a %s state, kind %d requested", s.Layout.Type, kind)
	}
	return s, nil
}

// CRDTEntry is one block's latest write, as JSON: its block, clock, replica
// and the 0x-hex handle of the writer's ciphertext.
type CRDTEntry struct {
	Block   uint32 `json:"block"`
	Clock   uint64 `json:"clock"`
	Replica uint32 `json:"replica"`
	Handle  string `json:"handle"`
}

// CRDTLayout is meta.Layout as JSON.
type CRDTLayout struct {
	Type   uint8  `json:"type"`
	Preset uint8  `json:"preset"`
	Level  uint8  `json:"level"`
	Blocks uint32 `json:"blocks"`
	Width  uint32 `json:"width"`
}

// CRDTMetadata encodes a state: the layout and its entries (each written
// with meta.State.Put: at most one per block, the larger of two by the
// public order), canonical bytes FHECRDT.create takes.
func CRDTMetadata(l CRDTLayout, entries []CRDTEntry) ([]byte, error) {
	s, err := meta.New(meta.Layout{Type: meta.Type(l.Type), Preset: l.Preset, Level: l.Level, Blocks: l.Blocks, Width: l.Width})
	if err != nil {
		return nil, err
	}
	for i, e := range entries {
		h, err := parseHandle(e.Handle)
		if err != nil {
			return nil, fmt.Errorf("entry %d: %w", i, err)
		}
		if s, err = s.Put(meta.Entry{Block: e.Block, Clock: e.Clock, Replica: e.Replica, Handle: h}); err != nil {
			return nil, fmt.Errorf("entry %d: %w", i, err)
		}
	}
	return s.Encode(), nil
}

func parseHandle(s string) (meta.Handle, error) {
	var h meta.Handle
	if len(s) != 66 || s[:2] != "0x" {
		return h, fmt.Errorf("handle %q: want 0x and 64 hex digits", s)
	}
	if _, err := hex.Decode(h[:], []byte(s[2:])); err != nil {
		return h, fmt.Errorf("handle %q: %w", s, err)
	}
	return h, nil
}

// CRDTCheck is what FHECRDT.create decides about metadata for a state of
// kind (CRDTMeta.Validate, then CRDTMeta.Handles): the handles it
// references, or the reason create reverts with after
// "FHECRDT.create: metadata: ".
func CRDTCheck(kind uint8, metadata []byte) ([]string, error) {
	s, err := crdtDecode(kind, metadata)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, h := range s.Handles() {
		out = append(out, h.String())
	}
	return out, nil
}

// CRDTMerge is what FHECRDT.merge decides about two states' metadata
// (CRDTMeta.Merge: the join): the merged canonical bytes, or the reason
// merge reverts with after "FHECRDT.merge: metadata: ".
func CRDTMerge(kind uint8, a, b []byte) ([]byte, error) {
	if _, err := crdtDecode(kind, a); err != nil {
		return nil, err
	}
	return meta.Merge(a, b)
}
