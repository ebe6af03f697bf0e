//go:build !(js && wasm)

package main

import (
	"fmt"
	"os"
)

// main outside js/wasm: this command is only useful compiled for the
// browser (npm run build in clients/js).
func main() {
	fmt.Fprintln(os.Stderr, "build with GOOS=js GOARCH=wasm (cd clients/js && npm run build)")
	os.Exit(2)
}
