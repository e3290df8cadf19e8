// Package packaging holds the installers' sources: nfpm.yaml and the desktop entry and
// icons of the Linux package (`make package`), and the Wine test's ProcessPrng stand-in
// (wine/). It has no code; its test inspects the .deb that `make package` builds.
package packaging
