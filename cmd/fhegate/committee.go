package main

import (
	"context"
	"crypto/ecdsa"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/ava-labs/libevm/crypto"
	"github.com/spf13/cobra"
	"go.uber.org/zap"

	"github.com/fhegate/fhegate/consensus"
	"github.com/fhegate/fhegate/consensus/apiserver"
	"github.com/fhegate/fhegate/consensus/chain"
	"github.com/fhegate/fhegate/consensus/circuit"
	"github.com/fhegate/fhegate/consensus/config"
	"github.com/fhegate/fhegate/consensus/store"
	"github.com/fhegate/fhegate/consensus/transport"
	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/internal/ports"
)

func newCommitteeCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "committee",
		Short: "MPC committee member: keygen, assemble, distributed key generation, serve, status",
		Long: `A committee member evaluates queued FHE requests off the block path, threshold-decrypts only the
verdicts (noise flooding, one share per ciphertext ever) and posts BLS-aggregated verdicts to
FHEVerdict. See docs/committee.md.

  fhegate committee keygen --dir D --member i --addr H:P  on member i's machine: its secrets (encrypted), member-i.pub.json
  fhegate committee assemble --t 3 member-1.pub.json ...  committee.json from the public parts (checks every BLS PoP)
  fhegate committee init   --dir D --n 5 --t 3            all secrets on this machine: development only
  fhegate committee dkg    --dir D --member i             run member i's part (all members at once)
  fhegate committee dkg    --dir D --all                  run every member of D in this process
  fhegate committee serve  --dir D --member i --rpc URL   serve requests from a chain
  fhegate committee status --dir D --member i | --api URL
  fhegate committee rotate sign-key|bind-key|switch ...       bind the next key on chain, key-switch stored inputs to it`,
	}
	cmd.AddCommand(newCommitteeInitCmd(a), newCommitteeDKGCmd(a), newCommitteeServeCmd(a), newCommitteeStatusCmd(a), newCommitteeRotateCmd(a))
	addCommitteeKeyCommands(cmd, a) // keygen, assemble, --key-file (committee_keygen.go)
	return cmd
}

func newCommitteeInitCmd(a *app) *cobra.Command {
	var dir, preset, host, chainID string
	var n, t, basePort int
	var epoch uint64
	var rotations []int
	cmd := &cobra.Command{
		Use:   "init",
		Short: "Create a committee config and every member's secrets — all secrets on this machine: development only",
		Long: `Create a committee config and every member's secrets (TLS identity + BLS key) in one directory.
All secrets on this machine: development only. Whoever runs it holds every member's keys and
could forge verdicts and attestations alone; production committees use 'committee keygen' on
each member's machine and 'committee assemble' (docs/operators.md, "Per-member key generation").
The secrets are encrypted if $FHEGATE_KEY_PASSPHRASE or --key-file is given, else plain JSON.`,
		Example: `  fhegate committee init --dir c --n 5 --t 3 --chain-id 1337 --base-port 9700
  fhegate committee init --dir new --epoch 2 --n 5 --t 3 --chain-id 43117 --host 10.0.0.5`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cid, err := parseCommitteeChainID(chainID)
			if err != nil {
				return err
			}
			if err := checkCommitteeEpoch(epoch); err != nil {
				return err
			}
			addrs := make([]string, n)
			for i := range addrs {
				addrs[i] = net.JoinHostPort(host, fmt.Sprint(basePort+i+1))
			}
			warnEphemeralPort(cmd.ErrOrStderr(), fmt.Sprintf("--base-port %d", basePort), basePort+1, basePort+n)
			cfg, secrets, err := config.GenerateCommittee(cid, epoch, preset, t, addrs)
			if err != nil {
				return err
			}
			cfg.Rotations = rotations
			var encrypted bool
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return err
			}
			if err := config.SaveJSON(filepath.Join(dir, "committee.json"), cfg, 0o644); err != nil {
				return err
			}
			for _, s := range secrets {
				md := memberDir(dir, s.ID)
				if err := os.MkdirAll(md, 0o700); err != nil {
					return err
				}
				if encrypted, err = saveInitSecrets(filepath.Join(md, "secrets.json"), s); err != nil {
					return err
				}
			}
			fmt.Fprintf(cmd.OutOrStdout(), "committee of %d (threshold %d, %s) in %s; distribute member-<i>/secrets.json privately\n", n, t, preset, dir)
			if !encrypted {
				fmt.Fprintln(cmd.ErrOrStderr(), "development only: every member's secrets are on this machine, unencrypted (see `fhegate committee keygen`)")
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&dir, "dir", "committee", "output directory")
	cmd.Flags().IntVar(&n, "n", 5, "members")
	cmd.Flags().IntVar(&t, "t", 3, "threshold")
	cmd.Flags().StringVar(&preset, "preset", config.DefaultPreset, "FHE preset the committee holds keys for (policies deeper than its depth run through collective refreshes)")
	cmd.Flags().StringVar(&chainID, "chain-id", "1337", "chain id bound into attestations and verdicts")
	cmd.Flags().Uint64Var(&epoch, "epoch", 1, "key epoch: 1 for a first committee, the current epoch + 1 for a rotation (1 … 2^63−1)")
	cmd.Flags().StringVar(&host, "host", "127.0.0.1", "member transport host")
	cmd.Flags().IntVar(&basePort, "base-port", 9700, "member i listens on base-port+i")
	cmd.Flags().IntSliceVar(&rotations, "rotations", nil, "Galois rotations the plans need (default: powers of two)")
	return cmd
}

// warnEphemeralPort warns on w when a member transport port in first…last
// lies in this host's ephemeral port range: while the member is down, any
// outgoing connection may take its port, and its restart then fails with
// "address already in use" (package ports).
func warnEphemeralPort(w io.Writer, what string, first, last int) {
	if !ports.Ephemeral(first) && !ports.Ephemeral(last) {
		return
	}
	lo, hi := ports.EphemeralRange()
	fmt.Fprintf(w, "warning: %s puts a member transport inside this host's ephemeral port range %d–%d: while the member is down, "+
		"any outgoing connection may take its port and its restart fails with \"address already in use\"; choose a port below %d\n", what, lo, hi, lo)
}

// maxCommitteeEpoch is the largest epoch `committee init` accepts. FHEVerdict
// only lets the epoch move forward; an epoch near 2^64 (e.g. a chain id or
// -1 typed by mistake) would leave no room for any later rotation.
const maxCommitteeEpoch = 1<<63 - 1

func checkCommitteeEpoch(epoch uint64) error {
	switch {
	case epoch == 0:
		return errors.New("--epoch 0: epochs start at 1 (0 means no committee on chain)")
	case epoch > maxCommitteeEpoch:
		return fmt.Errorf("--epoch %d: must be below 2^63 (epochs only move forward, one rotation at a time; "+
			"a first committee has epoch 1, a rotation the current epoch + 1)", epoch)
	}
	return nil
}

// parseCommitteeChainID parses --chain-id: a positive integer that fits an
// EVM chain id (uint64).
func parseCommitteeChainID(s string) (*big.Int, error) {
	id, ok := new(big.Int).SetString(s, 10)
	if !ok || id.Sign() <= 0 || !id.IsUint64() {
		return nil, fmt.Errorf("--chain-id %q: want the chain's EVM chain id, a positive integer below 2^64", s)
	}
	return id, nil
}

func memberDir(dir string, id uint32) string { return filepath.Join(dir, fmt.Sprintf("member-%d", id)) }

// openMember loads committee.json and member id's secrets from dir and
// starts its transport and store.
func openMember(dir string, id uint32, timeout time.Duration, log *zap.Logger) (*consensus.Member, *store.Store, error) {
	return openMemberOn(dir, id, timeout, log, func(cfg *config.CommitteeConfig, tk ed25519.PrivateKey) (transport.Transport, error) {
		peers, err := cfg.Peers()
		if err != nil {
			return nil, err
		}
		return transport.ListenTLS(transport.TLSConfig{Self: transport.MemberID(id), Key: tk, Peers: peers, Log: log})
	})
}

// openMemberOn is openMember on the transport dial makes from the
// committee's configuration and the member's TLS identity key (a
// rotation's joint transport, or none for an old member whose committee
// does not meet).
func openMemberOn(dir string, id uint32, timeout time.Duration, log *zap.Logger,
	dial func(cfg *config.CommitteeConfig, tk ed25519.PrivateKey) (transport.Transport, error)) (*consensus.Member, *store.Store, error) {
	var cfg config.CommitteeConfig
	if err := config.LoadJSON(filepath.Join(dir, "committee.json"), &cfg); err != nil {
		return nil, nil, err
	}
	sec, err := loadMemberSecrets(dir, id, log)
	if err != nil {
		return nil, nil, err
	}
	tk, err := sec.TLSPrivateKey()
	if err != nil {
		return nil, nil, err
	}
	bk, err := sec.BLSSecretKey()
	if err != nil {
		return nil, nil, err
	}
	tr, err := dial(&cfg, tk)
	if err != nil {
		return nil, nil, err
	}
	st, err := store.Open(filepath.Join(memberDir(dir, id), "member.db"))
	if err != nil {
		tr.Close()
		return nil, nil, err
	}
	var circuits circuit.Circuits
	if pr, err := fhe.PresetByName(cfg.Preset); err == nil {
		circuits = circuit.NewPolicyCircuits(pr.ID)
	}
	m, err := consensus.NewMember(consensus.MemberConfig{Committee: cfg, Self: id, BLSKey: bk, RoundTimeout: timeout, Circuits: circuits}, tr, st, log)
	if err != nil {
		tr.Close()
		st.Close()
		return nil, nil, err
	}
	return m, st, nil
}

func newCommitteeDKGCmd(a *app) *cobra.Command {
	var dir string
	var id uint32
	var all bool
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "dkg",
		Short: "Run the distributed key generation (every member runs it, each started within one --round-timeout of the first)",
		Example: `  fhegate committee dkg --dir c --member 1
  fhegate committee dkg --dir c --all`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			log := a.Log()
			ctx := cmd.Context()
			var cfg config.CommitteeConfig
			if err := config.LoadJSON(filepath.Join(dir, "committee.json"), &cfg); err != nil {
				return err
			}
			ids := []uint32{id}
			if all {
				ids = nil
				for _, m := range cfg.Members {
					ids = append(ids, m.ID)
				}
			} else if id == 0 {
				return usageErrorf("--member or --all is required")
			}
			start := time.Now()
			errs := make([]error, len(ids))
			digests := make([]string, len(ids))
			var wg sync.WaitGroup
			for k, mid := range ids {
				wg.Add(1)
				go func(k int, mid uint32) {
					defer wg.Done()
					m, st, err := openMember(dir, mid, timeout, log.With(zap.Uint32("member", mid)))
					if err != nil {
						errs[k] = err
						return
					}
					defer st.Close()
					defer m.Close()
					km, err := m.DKG(ctx)
					if err != nil {
						errs[k] = fmt.Errorf("member %d: %w", mid, err)
						return
					}
					digests[k] = fmt.Sprintf("%x", km.Digest)
					pk, _ := km.Public.MarshalBinary()
					errs[k] = os.WriteFile(filepath.Join(memberDir(dir, mid), "committee.pk"), pk, 0o644)
					if k == 0 {
						_ = os.WriteFile(filepath.Join(dir, "committee.pk"), pk, 0o644)
					}
				}(k, mid)
			}
			wg.Wait()
			if err := errors.Join(errs...); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "DKG complete in %s; key material digest %s; collective public key in %s\n",
				time.Since(start).Round(time.Millisecond), digests[0], filepath.Join(dir, "committee.pk"))
			return nil
		},
	}
	cmd.Flags().StringVar(&dir, "dir", "committee", "committee directory (committee init)")
	cmd.Flags().Uint32Var(&id, "member", 0, "this member's id")
	cmd.Flags().BoolVar(&all, "all", false, "run every member of --dir in this process")
	cmd.Flags().DurationVar(&timeout, "round-timeout", 2*time.Minute, "per-round deadline")
	return cmd
}

// committeeServeOptions are the flags of `fhegate committee serve`.
type committeeServeOptions struct {
	dir, rpc, api, relayerKey, relayerKeyFile string
	apiTokens, apiCert, apiKey                string
	apiOrigins                                []string
	id                                        uint32
	timeout                                   time.Duration
	gpu                                       gpuFlags
}

func newCommitteeServeCmd(a *app) *cobra.Command {
	var o committeeServeOptions
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve as a committee member: answer peers, the client API, and requests from a chain",
		Long: `Serve as a committee member: answer peers, the client API (--api), and requests from a
chain (--rpc). With --rpc, the member posts verdicts from a relayer account whose key is read
from --relayer-key-file (hex, a file only its owner may read: chmod 600) or the
FHEGATE_RELAYER_KEY environment variable — never from the command line, which every user
of the machine can read.`,
		Example: `  fhegate committee serve --dir c --member 1 --api 127.0.0.1:8600
  fhegate committee serve --dir c --member 1 --rpc http://node:9650/ext/bc/<id>/rpc \
      --relayer-key-file relayer.key --api 0.0.0.0:8600 --api-tokens tokens.txt \
      --api-tls-cert api.crt --api-tls-key api.key`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if cmd.Flags().Changed("relayer-key") {
				return errors.New("--relayer-key is no longer accepted: a key on the command line is visible to every user (ps, /proc); " +
					"write it to a file (chmod 600) and pass --relayer-key-file, or set FHEGATE_RELAYER_KEY")
			}
			return runCommitteeServe(cmd.Context(), a.Log().With(zap.Uint32("member", o.id)), o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.dir, "dir", "committee", "committee directory")
	f.Uint32Var(&o.id, "member", 0, "this member's id")
	f.StringVar(&o.rpc, "rpc", "", "chain JSON-RPC URL (watch requests, post verdicts)")
	f.StringVar(&o.api, "api", "", "serve the client API (POST /v1/inputs, GET /v1/publickey, GET /v1/status) on this address")
	f.StringVar(&o.relayerKeyFile, "relayer-key-file", "", "file holding the hex secp256k1 key paying for FHEVerdict.submit "+
		"(mode 0600 or stricter; default: the FHEGATE_RELAYER_KEY environment variable)")
	f.StringVar(&o.relayerKey, "relayer-key", "", "removed: use --relayer-key-file")
	_ = f.MarkHidden("relayer-key")
	f.StringVar(&o.apiTokens, "api-tokens", "", "file of client API bearer tokens, one per line (required off loopback; without it a loopback API is unauthenticated)")
	f.StringVar(&o.apiCert, "api-tls-cert", "", "PEM certificate of the client API (HTTPS; required off loopback)")
	f.StringVar(&o.apiKey, "api-tls-key", "", "PEM key of --api-tls-cert")
	f.StringSliceVar(&o.apiOrigins, "api-allow-origin", nil, "browser origins (scheme://host[:port|:*]) whose pages may call the client API (CORS; tokens still apply)")
	f.DurationVar(&o.timeout, "round-timeout", 30*time.Second, "per-round deadline")
	o.gpu.register(cmd)
	_ = cmd.MarkFlagRequired("member")
	return cmd
}

// runCommitteeServe runs one member until ctx is cancelled: peers, the
// client API (--api) and, with --rpc, the requests of a chain.
func runCommitteeServe(ctx context.Context, log *zap.Logger, o committeeServeOptions) error {
	stopGPU, err := o.gpu.install(log)
	if err != nil {
		return err
	}
	defer stopGPU()
	m, st, err := openMember(o.dir, o.id, o.timeout, log)
	if err != nil {
		return err
	}
	defer st.Close()
	defer m.Close()
	if _, err := m.Keys(); err != nil {
		return err
	}
	if o.api != "" {
		closeAPI, err := serveCommitteeAPI(log, m, o)
		if err != nil {
			return err
		}
		defer closeAPI()
	}
	if o.rpc == "" {
		log.Info("no --rpc: answering peers and the API only")
		<-ctx.Done()
		return nil
	}
	return serveCommitteeChain(ctx, log, m, o)
}

// serveCommitteeAPI starts the member's client API on --api and returns the
// function that stops it.
func serveCommitteeAPI(log *zap.Logger, m *consensus.Member, o committeeServeOptions) (func(), error) {
	ao := apiserver.APIOptions{TLSCert: o.apiCert, TLSKey: o.apiKey, AllowOrigins: o.apiOrigins}
	if o.apiTokens != "" {
		var err error
		if ao.Tokens, err = apiserver.LoadAPITokens(o.apiTokens); err != nil {
			return nil, fmt.Errorf("--api-tokens: %w", err)
		}
	} else if apiserver.IsLoopback(o.api) {
		ao.NoAuth = true // development: loopback only (NewAPIServer refuses it elsewhere)
		log.Warn("client API without --api-tokens: unauthenticated, loopback only")
	}
	srv, err := apiserver.NewAPIServer(m, o.api, ao)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", o.api)
	if err != nil {
		return nil, err
	}
	go func() { _ = apiserver.ServeAPI(srv, ln) }()
	scheme := "http://"
	if srv.TLSConfig != nil {
		scheme = "https://"
	}
	log.Info("client API", zap.String("url", scheme+ln.Addr().String()), zap.Bool("auth", !ao.NoAuth))
	return func() { _ = srv.Close() }, nil
}

// serveCommitteeChain watches --rpc's chain for requests and posts verdicts
// until ctx is cancelled.
func serveCommitteeChain(ctx context.Context, log *zap.Logger, m *consensus.Member, o committeeServeOptions) error {
	key, err := loadRelayerKey(o.relayerKeyFile, os.Getenv)
	if err != nil {
		return err
	}
	var cfg config.CommitteeConfig
	_ = config.LoadJSON(filepath.Join(o.dir, "committee.json"), &cfg)
	return chain.Serve(ctx, chain.ServeConfig{Members: []*consensus.Member{m},
		Config: chain.Config{URL: o.rpc, ChainID: cfg.ChainIDBig(), Key: key, Log: log.Named("chain")}})
}

// loadRelayerKey reads the relayer's secp256k1 key from path (hex, optional
// 0x, surrounding whitespace ignored), or, when path is empty, from the
// FHEGATE_RELAYER_KEY environment variable. The file must be a regular file
// that neither its group nor others may access. Errors never quote the key.
func loadRelayerKey(path string, getenv func(string) string) (*ecdsa.PrivateKey, error) {
	return loadSecpKey(path, "--relayer-key-file", "FHEGATE_RELAYER_KEY",
		"--relayer-key-file (or FHEGATE_RELAYER_KEY) is required with --rpc: the key of the account paying for FHEVerdict.submit", getenv)
}

// loadSecpKey reads a secp256k1 key from path (flag names it), or, when
// path is empty, from the environment variable env (missing: the error
// when neither is set). The file must be a regular file that neither its
// group nor others may access. Errors never quote the key.
func loadSecpKey(path, flag, env, missing string, getenv func(string) string) (*ecdsa.PrivateKey, error) {
	var text, from string
	if path != "" {
		from = flag + " " + path
		st, err := os.Stat(path)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", flag, err)
		}
		if !st.Mode().IsRegular() {
			return nil, fmt.Errorf("%s: not a regular file", from)
		}
		if perm := st.Mode().Perm(); perm&0o077 != 0 {
			return nil, fmt.Errorf("%s is accessible to its group or others (mode %04o): it holds a private key; chmod 600 %s", from, perm, path)
		}
		raw, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", flag, err)
		}
		text = string(raw)
	} else {
		from = env
		text = getenv(env)
		if strings.TrimSpace(text) == "" {
			return nil, errors.New(missing)
		}
	}
	text = strings.TrimPrefix(strings.TrimSpace(text), "0x")
	key, err := crypto.HexToECDSA(text)
	if err != nil {
		// HexToECDSA's errors may quote the input: say only what is wrong.
		return nil, fmt.Errorf("%s: not a hex secp256k1 private key (64 hex digits)", from)
	}
	return key, nil
}

func newCommitteeStatusCmd(a *app) *cobra.Command {
	var dir, api string
	var id uint32
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Show a member's status (keys, stored ciphertexts, shares issued, refreshes served, verdicts, requests seen and unanswered)",
		Example: `  fhegate committee status --dir c --member 1
  FHEGATE_API_TOKEN=$(head -1 tokens.txt) fhegate committee status --api https://10.0.0.5:8600`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			out := cmd.OutOrStdout()
			if api != "" {
				req, err := http.NewRequestWithContext(cmd.Context(), http.MethodGet, strings.TrimRight(api, "/")+"/v1/status", nil)
				if err != nil {
					return err
				}
				if tok := os.Getenv("FHEGATE_API_TOKEN"); tok != "" {
					req.Header.Set("Authorization", "Bearer "+tok)
				}
				resp, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
				if err != nil {
					return err
				}
				defer resp.Body.Close()
				_, err = io.Copy(out, resp.Body)
				return err
			}
			if id == 0 {
				return usageErrorf("--member or --api is required")
			}
			var cfg config.CommitteeConfig
			if err := config.LoadJSON(filepath.Join(dir, "committee.json"), &cfg); err != nil {
				return err
			}
			sec, err := loadMemberSecrets(dir, id, a.Log())
			if err != nil {
				return err
			}
			bk, err := sec.BLSSecretKey()
			if err != nil {
				return err
			}
			st, err := store.Open(filepath.Join(memberDir(dir, id), "member.db"))
			if err != nil {
				return fmt.Errorf("%w (is the member serving? use --api)", err)
			}
			defer st.Close()
			hub := transport.NewHub(len(cfg.Members))
			m, err := consensus.NewMember(consensus.MemberConfig{Committee: cfg, Self: id, BLSKey: bk}, hub.Endpoint(transport.MemberID(id)), st, zap.NewNop())
			if err != nil {
				return err
			}
			defer m.Close()
			enc := json.NewEncoder(out)
			enc.SetIndent("", "  ")
			return enc.Encode(m.Status())
		},
	}
	cmd.Flags().StringVar(&dir, "dir", "committee", "committee directory")
	cmd.Flags().Uint32Var(&id, "member", 0, "member id (reads its store offline)")
	cmd.Flags().StringVar(&api, "api", "", "member API URL (while it serves)")
	return cmd
}
