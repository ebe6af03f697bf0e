package precompileconfig

// Upgrade is the activation timestamp of a precompile and whether the upgrade
// disables it.
type Upgrade struct {
	BlockTimestamp *uint64 `json:"blockTimestamp"`
	Disable        bool    `json:"disable,omitempty"`
}

// Timestamp is the activation timestamp (nil: never).
func (u *Upgrade) Timestamp() *uint64 { return u.BlockTimestamp }

// IsDisabled reports whether the upgrade disables the precompile.
func (u *Upgrade) IsDisabled() bool { return u.Disable }

// Equal reports whether other has the same timestamp and disable flag.
func (u *Upgrade) Equal(other *Upgrade) bool {
	if other == nil {
		return false
	}
	if (u.BlockTimestamp == nil) != (other.BlockTimestamp == nil) {
		return false
	}
	return u.Disable == other.Disable && (u.BlockTimestamp == nil || *u.BlockTimestamp == *other.BlockTimestamp)
}
