// Package scripts holds the tests of the shell scripts beside it. They run the real scripts
// with stand-in programs first on PATH, so nothing is installed and nothing is downloaded.
package scripts

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// fakeTools are stand-ins for the programs scripts/setup.sh runs, written into a directory
// put first on PATH. Each records its arguments, one call per line, in $FAKE_LOG. Their
// behaviour is set through the environment:
//   - FAKE_NODE: the version the system's node reports (empty: no node at all);
//   - FAKE_MISSING: Debian packages dpkg-query reports as not installed (space-separated);
//   - FAKE_LOCKED: how many times apt-get update fails on the package lists' lock first;
//   - FAKE_UPDATE_FAILS: apt-get update fails with another error.
//
// npm install --prefix DIR node-linux-<arch>@22 leaves a node in DIR/bin reporting 22.22.0,
// as the real package does; npm@11 leaves npm's folder and an npm in DIR/bin.
var fakeTools = map[string]string{
	"go": `case "$*" in
  "env GOVERSION") echo go9.99.0 ;;
  version) echo "go version go9.99.0 linux/amd64" ;;
  *) echo "fake go: unexpected $*" >&2; exit 2 ;;
esac`,
	"node": `[ -n "$FAKE_NODE" ] || { echo "node: not found" >&2; exit 127; }
case "$*" in
  "-p process.versions.node") echo "$FAKE_NODE" ;;
  --version) echo "v$FAKE_NODE" ;;
esac`,
	"npm": `echo "npm $*" >>"$FAKE_LOG"
[ "$1" = --version ] && { echo 10.9.0; exit 0; }
prefix="" pkg=""
while [ $# -gt 0 ]; do
  case $1 in --prefix) prefix=$2; shift ;; -*) ;; *) pkg=$1 ;; esac
  shift
done
case $pkg in
  node-linux-*@22)
    mkdir -p "$prefix/bin"
    printf '#!/bin/sh\ncase "$*" in --version) echo v22.22.0 ;; *) echo 22.22.0 ;; esac\n' >"$prefix/bin/node"
    chmod +x "$prefix/bin/node" ;;
  npm@*)
    mkdir -p "$prefix/lib/node_modules/npm" "$prefix/bin"
    printf '#!/bin/sh\necho 11.0.0\n' >"$prefix/bin/npm"
    chmod +x "$prefix/bin/npm" ;;
esac`,
	"dpkg-query": `pkg=""
for a in "$@"; do pkg=$a; done
case " $FAKE_MISSING " in *" $pkg "*) exit 1 ;; esac
printf 'install ok installed'`,
	"apt-get": `echo "apt-get $*" >>"$FAKE_LOG"
case " $* " in
  *" update "*)
    if [ -n "$FAKE_UPDATE_FAILS" ]; then echo "E: The repository 'x' does not have a Release file." >&2; exit 100; fi
    n=$(cat "$FAKE_LOG.locked" 2>/dev/null || echo "${FAKE_LOCKED:-0}")
    if [ "$n" -gt 0 ]; then
      echo $((n - 1)) >"$FAKE_LOG.locked"
      echo "E: Could not get lock /var/lib/apt/lists/lock. It is held by process 4242 (apt-get)" >&2
      echo "E: Unable to lock directory /var/lib/apt/lists/" >&2
      exit 100
    fi ;;
esac
exit 0`,
	"sudo":    `exec "$@"`,
	"fc-list": `echo "/usr/share/fonts/noto/NotoSansCJK.ttc: Noto Sans CJK SC:style=Regular"`,
}

// setupRun is one run of scripts/setup.sh with the stand-ins.
type setupRun struct {
	out   string   // stdout and stderr
	err   error    // the script's exit
	calls []string // the stand-ins' calls, in order
	home  string   // $HOME of the run
}

// runSetup runs scripts/setup.sh mode with the stand-ins first on PATH, a fresh $HOME and
// env added to the environment.
func runSetup(t *testing.T, mode string, env ...string) setupRun {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("scripts/setup.sh is for Debian and Ubuntu")
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	home := filepath.Join(dir, "home")
	for _, d := range []string{bin, home} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for name, body := range fakeTools {
		if err := os.WriteFile(filepath.Join(bin, name), []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	log := filepath.Join(dir, "calls.log")
	cmd := exec.Command(bash, "setup.sh", mode)
	cmd.Env = append([]string{"PATH=" + bin + ":/usr/bin:/bin", "HOME=" + home, "FAKE_LOG=" + log, "LC_ALL=C"}, env...)
	out, err := cmd.CombinedOutput()
	r := setupRun{out: string(out), err: err, home: home}
	if b, readErr := os.ReadFile(log); readErr == nil {
		r.calls = strings.Split(strings.TrimSpace(string(b)), "\n")
	}
	return r
}

// nodeArch is the name node-linux-<arch> gives this machine's architecture.
func nodeArch(t *testing.T) string {
	switch runtime.GOARCH {
	case "amd64":
		return "x64"
	case "arm64":
		return "arm64"
	}
	t.Skipf("no node-linux package named for %s in this test", runtime.GOARCH)
	return ""
}

// TestSetupWaitsForTheAptLock: every apt-get call carries DPkg::Lock::Timeout=600, so apt-get
// install waits for another package manager (a fresh Ubuntu's unattended-upgrades) instead
// of failing at once; apt-get update, whose lock on the package lists that option does not
// cover, is tried again while that lock is held. Another failure of apt-get update ends setup
// at once with apt's message.
func TestSetupWaitsForTheAptLock(t *testing.T) {
	r := runSetup(t, "run", "FAKE_NODE=22.13.0", "FAKE_MISSING=libgtk-3-dev git", "FAKE_LOCKED=1")
	if r.err != nil {
		t.Fatalf("setup.sh run: %v\n%s", r.err, r.out)
	}
	var apt []string
	for _, c := range r.calls {
		if strings.HasPrefix(c, "apt-get ") {
			apt = append(apt, c)
		}
	}
	want := []string{
		"apt-get -o DPkg::Lock::Timeout=600 update -qq", // locked
		"apt-get -o DPkg::Lock::Timeout=600 update -qq",
		"apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends libgtk-3-dev git",
	}
	if strings.Join(apt, "\n") != strings.Join(want, "\n") {
		t.Errorf("apt-get calls:\n%s\nwant:\n%s\noutput:\n%s", strings.Join(apt, "\n"), strings.Join(want, "\n"), r.out)
	}
	if !strings.Contains(r.out, "another package manager is using apt") {
		t.Errorf("setup did not say it waits for the lock:\n%s", r.out)
	}

	r = runSetup(t, "run", "FAKE_NODE=22.13.0", "FAKE_MISSING=git", "FAKE_UPDATE_FAILS=1")
	if r.err == nil || !strings.Contains(r.out, "does not have a Release file") {
		t.Errorf("setup with a failing apt-get update: %v, output:\n%s\nwant a failure quoting apt", r.err, r.out)
	}
	if len(r.calls) != 1 {
		t.Errorf("apt-get calls after a failure that is not a lock: %q, want the one update", r.calls)
	}
}

// TestSetupNodeVersion: the frontend needs Node 22.13 or later (react-i18next 18 and
// i18next need 22; Vite, ESLint and jsdom 22.13 on that line), so a system node older than
// that (Node 20, end-of-life, or an early 22) makes setup install Node 22 and npm 11 into
// ~/.local/node22, which the Makefile puts first on PATH; a new enough node is used as it is.
func TestSetupNodeVersion(t *testing.T) {
	arch := nodeArch(t)
	for _, c := range []struct {
		node    string
		install bool
	}{
		{"", true},
		{"18.19.1", true},
		{"20.19.0", true},
		{"20.20.2", true},
		{"22.12.0", true},
		{"22.13.0", false},
		{"24.1.0", false},
	} {
		r := runSetup(t, "run", "FAKE_NODE="+c.node)
		if r.err != nil {
			t.Errorf("node %q: setup.sh run: %v\n%s", c.node, r.err, r.out)
			continue
		}
		var npm []string
		for _, call := range r.calls {
			if strings.HasPrefix(call, "npm install") {
				npm = append(npm, call)
			}
		}
		if !c.install {
			if len(npm) != 0 || !strings.Contains(r.out, "node v"+c.node) {
				t.Errorf("node %s: installed %q; want the system's node used\n%s", c.node, npm, r.out)
			}
			continue
		}
		if len(npm) != 2 || !strings.HasSuffix(npm[0], " node-linux-"+arch+"@22") || !strings.HasSuffix(npm[1], " npm@11") {
			t.Errorf("node %q: npm calls %q, want node-linux-%s@22 then npm@11\n%s", c.node, npm, arch, r.out)
		}
		nodeHome := filepath.Join(r.home, ".local", "node22")
		if _, err := os.Stat(filepath.Join(nodeHome, "bin", "node")); err != nil {
			t.Errorf("node %q: no node in %s: %v", c.node, nodeHome, err)
		}
		if b, err := os.ReadFile(filepath.Join(nodeHome, "lib", "node_modules", "npm", "npmrc")); err != nil || string(b) != "prefix="+nodeHome+"\n" {
			t.Errorf("node %q: npm's npmrc = %q, %v", c.node, b, err)
		}
		if !strings.Contains(r.out, "node v22.22.0 ("+filepath.Join(nodeHome, "bin", "node")+")") {
			t.Errorf("node %q: setup does not end with the installed node:\n%s", c.node, r.out)
		}
	}
	// The Makefile's PATH names that folder.
	r := runSetup(t, "path")
	if r.err != nil || !strings.Contains(r.out, filepath.Join(r.home, ".local", "node22", "bin")) {
		t.Errorf("setup.sh path = %q, %v; want ~/.local/node22/bin in it", r.out, r.err)
	}
}
