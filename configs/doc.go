// Package configs holds fhegate's configuration files and the Go helpers that
// read them: chain genesis files for the devnet and for a subnet running the
// fhegate VM plugin, the plugin's VM identity, and (from other areas) the
// committee and GPU threshold defaults. Every file is embedded so that a
// single binary carries its defaults; operators copy and edit the JSON.
package configs
