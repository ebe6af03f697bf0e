// Package types is a stand-in for github.com/luxfi/geth/core/types: the Log
// type (every field, shapes only).
package types

import "github.com/luxfi/geth/common"

// Log is a contract log event.
type Log struct {
	Address        common.Address `json:"address"`
	Topics         []common.Hash  `json:"topics"`
	Data           []byte         `json:"data"`
	BlockNumber    uint64         `json:"blockNumber"`
	TxHash         common.Hash    `json:"transactionHash"`
	TxIndex        uint           `json:"transactionIndex"`
	BlockHash      common.Hash    `json:"blockHash"`
	BlockTimestamp uint64         `json:"blockTimestamp"`
	Index          uint           `json:"logIndex"`
	Removed        bool           `json:"removed"`
}
