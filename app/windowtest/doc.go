// Package windowtest holds the tests that drive the real desktop window under Xvfb: the built
// binary named by AF_WINDOW_BIN (`make window-test` builds it and sets it) is started on a
// private X server against a scripted model on loopback, driven with xdotool, and observed the
// only ways a real window allows: its pixels (screenshots taken with ImageMagick's import),
// the clipboard (xclip), the database and what the stand-in system browser was asked to open.
// Without AF_WINDOW_BIN every test skips.
//
// The package has no code of its own outside its tests; harness_test.go is the one harness
// they share (X server, launch, screenshots, input, waits with deadlines, pixel helpers).
package windowtest
