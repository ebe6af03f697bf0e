package precompiles

import (
	"math/big"
)

// Isolation deposits. A request of a packed policy shares one packed
// evaluation with up to BatchOccupancy others and pays 1/BatchOccupancy of
// it (its plan cost). An input whose slot decrypts outside the plan's output
// range makes the committee re-run the rest of its batch (booked isolation,
// consensus/pipeline/isolate.go: at most IsolationRuns = 2 extra runs per
// batch, and with valid input proofs at most one extra run per offender).
// So that this work is paid by whoever causes it, every request of a packed
// policy carries a deposit worth one whole packed evaluation,
//
//	Deposit = cost × BatchOccupancy × DepositWeiPerGas wei,
//
// sent as the call value of FHEPolicy.evaluate / evaluateAttested /
// evaluateRooted (exactly that amount; FHEPolicy.depositOf tells it) and
// held at FHEPolicy's address. FHEVerdict settles it in the transaction that
// decides the request: a verdict other than ResultRejectedInput (including
// ResultUnevaluable and ResultExpired, the committee's failures) pays it
// back to the requester — the account that called evaluate — and
// ResultRejectedInput burns it. A request of a policy evaluated alone
// carries none: its out-of-range verdict is rejected in its own run, with
// no extra work. k offenders in one batch cause at most min(k, 2) extra runs
// and forfeit k deposits of one run each, so the isolation work a batch
// costs never exceeds what its offenders paid (docs/gas.md, "Isolation is
// booked"). Settlement never runs the recipient's code (a balance credit,
// like a block reward), so it cannot re-enter or fail on the recipient.
// Whether a request holds a deposit is a bit of its record (reqDeposit), so
// a record written without one is never paid out; the amount follows from
// the policy's cost, which never changes.

// DepositWeiPerGas prices the deposit: wei per gas of the committee work it
// covers (1 gwei, the devnet's minimum base fee). A protocol constant like
// CommitteeGasPerBlock: a chain that changes it must first let every
// request made under the old value settle.
const DepositWeiPerGas = 1_000_000_000

// GasBalanceMove is the gas of one deposit settlement: the recipient's cold
// account access (EIP-2929, 2,600) and its balance update, priced as a
// storage update (GasUpdate). A forfeit costs the same (FHEPolicy's balance).
const GasBalanceMove = 2_600 + GasUpdate

// reqDeposit is the bit of a request record's first byte set when the
// request holds a deposit (encodeReqHeader).
const reqDeposit = 2

// Deposit is the deposit a request of a policy of plan cost cost carries:
// cost × BatchOccupancy × DepositWeiPerGas wei for a packed policy, none for
// a policy evaluated alone.
func Deposit(cost uint64, alone bool) *big.Int {
	if alone || cost == 0 {
		return new(big.Int)
	}
	d := new(big.Int).SetUint64(cost) // cost ≤ MaxPlanCost: no overflow below
	d.Mul(d, big.NewInt(BatchOccupancy*DepositWeiPerGas))
	return d
}

// depositOf is the deposit of policy record p on the call's host: none
// where the host cannot hold deposits (Env.HoldsDeposits).
func depositOf(cl *call, p policyRec) *big.Int {
	if !cl.env.HoldsDeposits() {
		return new(big.Int)
	}
	return Deposit(p.cost, p.alone)
}

// checkDeposit refuses a request whose call value is not exactly the
// policy's deposit.
func checkDeposit(cl *call, method string, id Hash, p policyRec) (held bool, err error) {
	want := depositOf(cl, p)
	got := cl.env.CallValue()
	if got == nil {
		got = new(big.Int)
	}
	if got.Cmp(want) != 0 {
		return false, revertWith(ErrDeposit, "FHEPolicy."+method,
			"policy %s takes a deposit of exactly %s wei (FHEPolicy.depositOf: refunded with the verdict, burnt when the input is rejected), the call carries %s", id, want, got)
	}
	return want.Sign() > 0, nil
}

// settlement gathers the deposits one FHEVerdict call settles, for its
// DepositsSettled event.
type settlement struct {
	refunded, forfeited       uint32
	refundedWei, forfeitedWei *big.Int
}

// settle pays back (or, for ResultRejectedInput, burns) the deposit d of
// request req of requester, charging GasBalanceMove first.
func (st *settlement) settle(cl *call, requester Address, d, result *big.Int) error {
	if d.Sign() == 0 {
		return nil
	}
	if err := cl.charge(GasBalanceMove); err != nil {
		return err
	}
	if st.refundedWei == nil {
		st.refundedWei, st.forfeitedWei = new(big.Int), new(big.Int)
	}
	if result.Cmp(ResultRejectedInput) == 0 {
		st.forfeited++
		st.forfeitedWei.Add(st.forfeitedWei, d)
		return cl.st.move(FHEPolicyAddress, nil, d)
	}
	st.refunded++
	st.refundedWei.Add(st.refundedWei, d)
	return cl.st.move(FHEPolicyAddress, &requester, d)
}

// gasDepositsSettled is the DepositsSettled log (2 topics, 4 words).
var gasDepositsSettled = logGas(2, 4*32)

// emit logs DepositsSettled for policy policyID when anything was settled.
func (st *settlement) emit(cl *call, policyID Hash) error {
	if st.refunded+st.forfeited == 0 {
		return nil
	}
	if err := cl.charge(gasDepositsSettled); err != nil {
		return err
	}
	return cl.emit("DepositsSettled", [32]byte(policyID), st.refunded, st.forfeited, st.refundedWei, st.forfeitedWei)
}

// settleOne settles the deposit of one decided request (submit, expire)
// and logs it.
func settleOne(cl *call, pr pendingReq, result *big.Int) error {
	var st settlement
	if err := st.settle(cl, pr.requester, pr.deposit, result); err != nil {
		return err
	}
	return st.emit(cl, pr.policyID)
}
