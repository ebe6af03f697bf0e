// Package repo holds repository-wide checks that belong to no one package:
// its tests keep docs/design.md's package map and consensus/doc.go's
// file map in step with the tree.
package repo
