// Stand-in for github.com/luxfi/geth: only the types fhegate's Lux adapter and
// the evm stand-in use, with the real package paths and shapes (see
// ../README.md). Never published; CI builds the adapter against it through a
// go.work file.
module github.com/luxfi/geth

go 1.24.5
