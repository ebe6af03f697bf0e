package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/ava-labs/libevm/crypto"
	"go.uber.org/zap"

	"github.com/fhegate/fhegate/consensus/api"
	"github.com/fhegate/fhegate/consensus/apiserver"
	"github.com/fhegate/fhegate/consensus/local"
)

// privateReadCommittee runs `gohelper committee DIR OWNERKEY`: a 2-of-3
// in-process committee (bgv-n13-t65537, the wasm core knows no test preset) with every member's API on
// loopback and an in-memory ACL, one input of the owner (values 11, −22,
// 33) uploaded and allowed to it. It prints {"apis","handle","chainId",
// "preset"} on one line and serves until stdin closes.
func privateReadCommittee(dir, ownerHex string) error {
	ownerKey, err := crypto.HexToECDSA(ownerHex)
	if err != nil {
		return fmt.Errorf("owner key: %w", err)
	}
	owner := crypto.PubkeyToAddress(ownerKey.PublicKey)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	lc, err := local.Start(ctx, local.Options{N: 3, T: 2, Dir: dir, Preset: "bgv-n13-t65537",
		RoundTimeout: 5 * time.Second, Log: zap.NewNop()})
	if err != nil {
		return err
	}
	defer lc.Close()
	acl := local.NewMemACL()
	apis, stop, err := lc.ServeMemberAPIs(apiserver.DevAPIOptions(), acl)
	if err != nil {
		return err
	}
	defer stop()
	m := lc.Member(1)
	ct, proof, err := m.EncryptInput([]int64{11, -22, 33}, owner)
	if err != nil {
		return err
	}
	att, err := m.UploadBatch(ctx, owner, []api.InputUpload{{Ciphertext: ct, Proof: proof, CType: 1}})
	if err != nil {
		return err
	}
	acl.Allow(att.Handle, owner)
	out, err := json.Marshal(map[string]any{"apis": apis, "handle": att.Handle.String(), "chainId": lc.Config.ChainIDBig().String(),
		"preset": m.Params().Preset.Name})
	if err != nil {
		return err
	}
	fmt.Println(string(out))
	_, _ = io.Copy(io.Discard, os.Stdin)
	return nil
}
