package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"sync"

	"github.com/spf13/cobra"
	"go.uber.org/zap"

	"github.com/fhegate/fhegate/consensus/config"
)

// Per-member key generation (docs/operators.md, "Per-member key
// generation"): every member generates its own TLS identity and BLS key on
// its own machine (`committee keygen`), encrypted at rest, and publishes only
// the public part; anyone assembles committee.json from the public parts
// (`committee assemble`), verifying each BLS proof of possession. No one
// ever holds another member's secrets — unlike `committee init`, which
// generates them all on one machine (development only).

// Environment variables that unlock a member's secrets file. A passphrase is
// never a flag: the command line is visible to every user of the machine.
const (
	envKeyPassphrase = "FHEGATE_KEY_PASSPHRASE"
	envKeyFile       = "FHEGATE_KEY_FILE"
)

// committeeKeyFile holds the `committee` command's persistent --key-file
// flag (every member subcommand: keygen, dkg, serve, status, rotate, init).
// It is process state because openMember, which every member command goes
// through, takes no flags; a process runs one command line.
var committeeKeyFile struct {
	sync.Mutex
	path string
}

type keyFileFlag struct{}

func (keyFileFlag) String() string {
	committeeKeyFile.Lock()
	defer committeeKeyFile.Unlock()
	return committeeKeyFile.path
}

func (keyFileFlag) Set(s string) error {
	committeeKeyFile.Lock()
	defer committeeKeyFile.Unlock()
	committeeKeyFile.path = s
	return nil
}

func (keyFileFlag) Type() string { return "path" }

// addCommitteeKeyCommands adds keygen, assemble and the persistent
// --key-file flag to the committee command.
func addCommitteeKeyCommands(cmd *cobra.Command, a *app) {
	_ = keyFileFlag{}.Set("")
	cmd.PersistentFlags().Var(keyFileFlag{}, "key-file", "age X25519 identity file that encrypts this member's secrets "+
		"(0600; keygen creates it if missing; default $"+envKeyFile+"); or set $"+envKeyPassphrase+" to use a passphrase")
	cmd.AddCommand(newCommitteeKeygenCmd(a), newCommitteeAssembleCmd(a))
}

// memberSecretsKey is what unlocks a member's secrets: $FHEGATE_KEY_PASSPHRASE
// and/or --key-file ($FHEGATE_KEY_FILE).
func memberSecretsKey() config.SecretsKey {
	k := config.SecretsKey{Passphrase: os.Getenv(envKeyPassphrase), KeyFile: keyFileFlag{}.String()}
	if k.KeyFile == "" {
		k.KeyFile = os.Getenv(envKeyFile)
	}
	return k
}

// loadMemberSecrets reads member id's secrets from dir (encrypted, or plain
// from older versions and `committee init` without a key, with a warning).
func loadMemberSecrets(dir string, id uint32, log *zap.Logger) (*config.MemberSecrets, error) {
	if log == nil {
		log = zap.NewNop()
	}
	sec, err := config.LoadMemberSecrets(filepath.Join(memberDir(dir, id), "secrets.json"), memberSecretsKey(),
		func(msg string) { log.Warn(msg) })
	if err != nil {
		return nil, err
	}
	if sec.ID != id {
		return nil, fmt.Errorf("%s holds member %d's secrets, not member %d's", filepath.Join(memberDir(dir, id), "secrets.json"), sec.ID, id)
	}
	return sec, nil
}

// saveInitSecrets writes a `committee init` member's secrets: encrypted when
// a passphrase or key file is given, else plain JSON (development).
func saveInitSecrets(path string, s *config.MemberSecrets) (encrypted bool, err error) {
	k := memberSecretsKey()
	if k.IsZero() {
		return false, config.SaveMemberSecretsPlaintext(path, s)
	}
	if k.Passphrase == "" {
		if _, err := os.Stat(k.KeyFile); errors.Is(err, os.ErrNotExist) {
			if _, err := config.GenerateKeyFile(k.KeyFile); err != nil {
				return false, err
			}
		}
	}
	return true, config.SaveMemberSecrets(path, s, k)
}

// keygenOptions holds `committee keygen`'s flags.
type keygenOptions struct {
	dir, addr  string
	id         uint32
	workFactor int
}

func newCommitteeKeygenCmd(a *app) *cobra.Command {
	var o keygenOptions
	cmd := &cobra.Command{
		Use:   "keygen",
		Short: "Generate this member's TLS and BLS secrets here (encrypted) and print its public part",
		Example: `  FHEGATE_KEY_PASSPHRASE=… fhegate committee keygen --dir c --member 2 --addr 10.0.0.2:9702
  fhegate committee --key-file ~/.fhegate/member-2.key keygen --dir c --member 2 --addr 10.0.0.2:9702`,
		Long: `Run on each member's own machine. Generates the member's TLS identity (ed25519) and BLS key,
writes them encrypted to DIR/member-I/secrets.json (mode 0600, directory 0700) and writes the
public part (id, addr, tlsKey, blsKey, blsPop) to DIR/member-I.pub.json and stdout. Send only
the .pub.json to whoever assembles the committee (fhegate committee assemble).

The secrets are encrypted with age (age-encryption.org): to the passphrase in
$FHEGATE_KEY_PASSPHRASE (scrypt, memory-hard), or to the X25519 identity in --key-file
(created, 0600, if it does not exist). The passphrase is never a flag. Keep the passphrase or
key file and secrets.json: they are this member's identity; lose them and the committee must
replace the member.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runKeygen(cmd.OutOrStdout(), cmd.ErrOrStderr(), o)
		},
	}
	cmd.Flags().StringVar(&o.dir, "dir", "committee", "this member's committee directory")
	cmd.Flags().Uint32Var(&o.id, "member", 0, "this member's id (1..n, agreed among the operators)")
	cmd.Flags().StringVar(&o.addr, "addr", "", "host:port of this member's committee transport, as the other members reach it")
	cmd.Flags().IntVar(&o.workFactor, "scrypt-work-factor", config.DefaultScryptWorkFactor, "log2 scrypt cost of a passphrase (tests lower it)")
	_ = cmd.Flags().MarkHidden("scrypt-work-factor")
	return cmd
}

// runKeygen generates member o.id's secrets into o.dir (encrypted), writes
// its public part to o.dir/member-I.pub.json and stdout, and reports on
// stderr where each went.
func runKeygen(stdout, stderr io.Writer, o keygenOptions) error {
	k, err := o.secretsKey()
	if err != nil {
		return err
	}
	secPath := filepath.Join(memberDir(o.dir, o.id), "secrets.json")
	if _, err := os.Stat(secPath); err == nil {
		return fmt.Errorf("%s exists: refusing to replace a member's keys (move it away first)", secPath)
	}
	if err := os.MkdirAll(o.dir, 0o700); err != nil {
		return err
	}
	if err := ensureKeyFile(stderr, k.KeyFile); err != nil {
		return err
	}
	sec, pub, err := config.GenerateMemberSecrets(o.id, o.addr)
	if err != nil {
		return err
	}
	if _, port, err := net.SplitHostPort(o.addr); err == nil {
		if p, err := strconv.Atoi(port); err == nil {
			warnEphemeralPort(stderr, "--addr "+o.addr, p, p)
		}
	}
	if err := config.SaveMemberSecrets(secPath, sec, k); err != nil {
		return err
	}
	pubPath, b, err := writeMemberPub(o.dir, o.id, pub)
	if err != nil {
		return err
	}
	if _, err := stdout.Write(b); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "member %d: secrets in %s (encrypted); public part in %s — send only that file\n", o.id, secPath, pubPath)
	return nil
}

// secretsKey validates keygen's flags and returns the key that will encrypt
// the member's secrets: exactly one of a passphrase or a key file, never
// none.
func (o keygenOptions) secretsKey() (config.SecretsKey, error) {
	if o.id < 1 {
		return config.SecretsKey{}, errors.New("--member is required (this member's id, 1..n, as agreed with the other operators)")
	}
	if _, _, err := net.SplitHostPort(o.addr); err != nil || o.addr == "" {
		return config.SecretsKey{}, fmt.Errorf("--addr %q: want host:port, where the other members reach this member's committee transport", o.addr)
	}
	k := memberSecretsKey()
	if k.IsZero() {
		return config.SecretsKey{}, errors.New("set " + envKeyPassphrase + " or pass --key-file: member secrets are never written unencrypted")
	}
	if k.Passphrase != "" && k.KeyFile != "" {
		return config.SecretsKey{}, errors.New("give " + envKeyPassphrase + " or --key-file, not both")
	}
	k.WorkFactor = o.workFactor
	return k, nil
}

// ensureKeyFile creates the age identity file path (0600) if it is given and
// does not exist yet, and tells the operator on stderr.
func ensureKeyFile(stderr io.Writer, path string) error {
	if path == "" {
		return nil
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		return nil
	}
	ident, err := config.GenerateKeyFile(path)
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "created key file %s (age %s): keep it private and backed up\n", path, ident.Recipient())
	return nil
}

// writeMemberPub writes member id's public part as indented JSON to
// dir/member-I.pub.json and returns the path and the bytes written.
func writeMemberPub(dir string, id uint32, pub config.MemberInfo) (string, []byte, error) {
	b, err := json.MarshalIndent(pub, "", "  ")
	if err != nil {
		return "", nil, err
	}
	b = append(b, '\n')
	pubPath := filepath.Join(dir, fmt.Sprintf("member-%d.pub.json", id))
	if err := os.WriteFile(pubPath, b, 0o644); err != nil {
		return "", nil, err
	}
	return pubPath, b, nil
}

func newCommitteeAssembleCmd(a *app) *cobra.Command {
	var preset, chainID, out string
	var t int
	var epoch uint64
	var rotations []int
	cmd := &cobra.Command{
		Use:   "assemble member-1.pub.json member-2.pub.json ...",
		Short: "Build committee.json from the members' public parts (verifies every BLS proof of possession)",
		Example: `  fhegate committee assemble --chain-id 43117 --epoch 1 --t 3 -o c/committee.json \
    member-1.pub.json member-2.pub.json member-3.pub.json member-4.pub.json member-5.pub.json`,
		Long: `Build the committee config from the public parts that each member's 'committee keygen' wrote,
given in member-id order 1..n. Every BLS proof of possession is verified; duplicate keys or
addresses and ids out of order are refused. Needs no secrets: anyone can run it, and every
operator can re-run it to check the committee.json they are given. Writes to stdout, or --out.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cid, err := parseCommitteeChainID(chainID)
			if err != nil {
				return err
			}
			if err := checkCommitteeEpoch(epoch); err != nil {
				return err
			}
			members := make([]config.MemberInfo, len(args))
			for i, p := range args {
				b, err := os.ReadFile(p)
				if err != nil {
					return err
				}
				notPub := fmt.Errorf("%s is not a member's public part (a secrets file?): give the member-<i>.pub.json that keygen wrote", p)
				if config.SecretsEncrypted(b) {
					return notPub
				}
				dec := json.NewDecoder(bytes.NewReader(b))
				dec.DisallowUnknownFields()
				if err := dec.Decode(&members[i]); err != nil {
					return fmt.Errorf("%s: %w", p, err)
				}
				if members[i].BLSPoP == "" || members[i].Addr == "" {
					return notPub
				}
			}
			cfg, err := config.AssembleCommittee(cid.String(), epoch, preset, t, rotations, members)
			if err != nil {
				return err
			}
			b, err := json.MarshalIndent(cfg, "", "  ")
			if err != nil {
				return err
			}
			b = append(b, '\n')
			if out != "" {
				if err := os.WriteFile(out, b, 0o644); err != nil {
					return err
				}
				fmt.Fprintf(cmd.ErrOrStderr(), "committee of %d (threshold %d, %s, epoch %d) in %s\n", len(members), t, preset, epoch, out)
				return nil
			}
			_, err = cmd.OutOrStdout().Write(b)
			return err
		},
	}
	cmd.Flags().IntVar(&t, "t", 0, "threshold (required)")
	cmd.Flags().StringVar(&preset, "preset", config.DefaultPreset, "FHE preset the committee holds keys for")
	cmd.Flags().StringVar(&chainID, "chain-id", "1337", "chain id bound into attestations and verdicts")
	cmd.Flags().Uint64Var(&epoch, "epoch", 1, "key epoch: 1 for a first committee, the current epoch + 1 for a rotation")
	cmd.Flags().IntSliceVar(&rotations, "rotations", nil, "Galois rotations the plans need (default: powers of two)")
	cmd.Flags().StringVarP(&out, "out", "o", "", "write committee.json here instead of stdout")
	_ = cmd.MarkFlagRequired("t")
	return cmd
}
