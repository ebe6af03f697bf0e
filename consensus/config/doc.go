// Package config holds a committee's files: the committee config every
// member and the chain share (CommitteeConfig, committee.json: members'
// public identities, threshold, preset, chain id, epoch), each member's
// secrets (MemberSecrets, secrets.json: its TLS identity seed and BLS
// secret key) and how they are kept at rest (an age file encrypted to a
// passphrase or an X25519 key file, mode 0600, refused if others may read
// it). GenerateCommittee creates a whole committee in one place (tests,
// the devnet); GenerateMemberSecrets and AssembleCommittee are the
// distributed ceremony, each member generating its own secrets and
// publishing only MemberInfo (with a BLS proof of possession). A member's
// run-time options are consensus.MemberConfig. joint.go lays out the joint
// transport of a rotation (JointPeers, JointOldID, JointMemberTransport).
package config
