// Package local runs an fhegate committee inside one process, for the
// devnet (`fhegate devnet`), `fhegate policy eval`, examples and tests: n
// members (consensus.Member) over real loopback TLS sockets, each with its
// own bbolt store under one directory, a DKG (Start) or the keys of an
// earlier run (Resume), and MemChain, an in-memory chain adapter that
// checks verdicts as FHEVerdict does (aggregate BLS signature by ≥ t
// registered members, once per request).
//
// A Committee can kill and restart members (Kill, Restart), serve its
// members' client APIs on loopback (ServeMemberAPIs), evaluate with the
// committee's collective refresh and decrypt every slot for development
// tools (Refresh, DecryptSlots: consensus.Member.RefreshAmong and
// DecryptAmong), and rotate to a new committee of the next epoch (Rotate:
// a new DKG, the key bound on chain, every stored input key-switched with
// consensus.KeySwitch). Member secrets are kept in plain JSON: every member
// lives in one directory of one machine, so a passphrase would protect
// nothing from whoever can read it (each member's threshold key share is
// still sealed in its store).
package local
