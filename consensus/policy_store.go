package consensus

import (
	"encoding/hex"
	"errors"
	"strings"

	"go.uber.org/zap"

	"github.com/fhegate/fhegate/consensus/circuit"
)

// policyKeyPrefix prefixes a registered policy spec in the member's store
// metadata: "policy/<policy id hex>" → the spec bytes as registered on chain.
const policyKeyPrefix = "policy/"

func policyKey(id [32]byte) string { return policyKeyPrefix + hex.EncodeToString(id[:]) }

// RegisterPolicy persists an on-chain policy spec in the member's store and
// compiles it for the member's circuits (when they are PolicyCircuits).
//
// The spec is written before it is compiled, and also when it does not
// compile for the committee preset: compilation is deterministic, so a
// restarted member that recompiles the stored spec records the same error
// and keeps answering the policy's requests with ResultUnevaluable. A
// restart therefore never forgets a policy, even when the chain adapter's
// event replay (chain.Adapter.ReplayPolicies) cannot reach the block that
// registered it (a pruned or rate-limited log index).
func (m *Member) RegisterPolicy(policyID [32]byte, spec []byte) error {
	pc, ok := m.cfg.Circuits.(*circuit.PolicyCircuits)
	if !ok {
		return errors.New("consensus: member circuits do not accept policy specs")
	}
	if err := m.st.PutMeta(policyKey(policyID), spec); err != nil {
		return err
	}
	return pc.Register(policyID, spec)
}

// LoadPolicies recompiles every policy spec persisted by RegisterPolicy into
// the member's PolicyCircuits (NewMember calls it; calling it again is
// harmless). It returns how many specs were loaded; a spec that does not
// compile is recorded as unevaluable, as at registration, and counted.
func (m *Member) LoadPolicies() int {
	pc, ok := m.cfg.Circuits.(*circuit.PolicyCircuits)
	if !ok {
		return 0
	}
	n := 0
	for _, k := range m.st.MetaKeys(policyKeyPrefix) {
		raw, err := hex.DecodeString(strings.TrimPrefix(k, policyKeyPrefix))
		if err != nil || len(raw) != 32 {
			m.log.Warn("malformed stored policy key", zap.String("key", k))
			continue
		}
		spec, err := m.st.GetMeta(k)
		if err != nil {
			continue
		}
		if err := pc.Register([32]byte(raw), spec); err != nil {
			m.log.Warn("stored policy not compiled for the committee; its requests will be answered unevaluable", zap.Error(err))
		}
		n++
	}
	return n
}
