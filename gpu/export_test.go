package gpu

// KeyCount exposes the size of the per-SubRing cache to tests.
func (d *Dispatcher) KeyCount() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.params)
}
