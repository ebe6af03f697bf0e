package consensus

import (
	"context"

	"github.com/fhegate/fhegate/consensus/chainio"
)

// Process runs one request end to end on this member (the request
// pipeline, consensus/pipeline: Runner.Process).
func (m *Member) Process(ctx context.Context, req chainio.Request) (*chainio.Verdict, error) {
	return m.pipe.Process(ctx, req)
}

// ProcessBatch runs a batch of requests one by one, Parallel at a time
// (Runner.ProcessBatch).
func (m *Member) ProcessBatch(ctx context.Context, reqs []chainio.Request) ([]*chainio.Verdict, []error) {
	return m.pipe.ProcessBatch(ctx, reqs)
}

// ProcessPacked runs a packed batch end to end on this member
// (Runner.ProcessPacked).
func (m *Member) ProcessPacked(ctx context.Context, b chainio.PackedBatch) ([]*chainio.Verdict, error) {
	return m.pipe.ProcessPacked(ctx, b)
}
