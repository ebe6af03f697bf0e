package protocol

// Wipe zeroes the member's Shamir share in place (a retiring member's last
// step of a rotation); the key is unusable after it.
func (k *ThresholdKey) Wipe() {
	if k == nil {
		return
	}
	for _, row := range k.Share.Q.Coeffs {
		clear(row)
	}
	for _, row := range k.Share.P.Coeffs {
		clear(row)
	}
}
